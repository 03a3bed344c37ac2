// A tool field's description, written like API docs ("The service to restart"), as a question to a person.

/** "The service to restart" → "Which service should I restart?"; anything else is asked about by name. */
export function fieldQuestion(field: string, description: string | undefined): string {
  const text = (description ?? '').trim();
  if (text === '') return `What should \`${field}\` be?`;
  if (text.endsWith('?')) return upperFirst(text);
  const { head, hint } = splitHint(text);
  const asked = askedHead(head);
  if (asked) return hint ? `${asked} (${hint})` : asked;
  return `What should \`${field}\` be? (${text.replace(/\.$/, '')})`;
}

function askedHead(head: string): string | undefined {
  const wh = /^(which|what|who|whom|where|when|how(?: many| much| long)?)\b\s*(.*?)\s*\bto\s+(.+)$/i.exec(
    head,
  );
  if (wh) return `${upperFirst(wh[1]!.toLowerCase())}${wh[2] ? ` ${wh[2]}` : ''} should I ${wh[3]}?`;
  const theThingTo = /^(?:the|a|an)\s+(.+?)\s+to\s+(.+)$/i.exec(head);
  if (theThingTo) return `Which ${theThingTo[1]} should I ${theThingTo[2]}?`;
  const thingTo = /^(\S.*?)\s+to\s+(.+)$/.exec(head);
  if (thingTo && /^[A-Z][a-z]/.test(thingTo[1]!))
    return `What ${lowerFirst(thingTo[1]!)} should I ${thingTo[2]}?`;
  const theThing = /^(?:the|a|an)\s+(.+)$/i.exec(head);
  if (theThing) return `What is the ${theThing[1]}?`;
  return undefined;
}

/** The description's first phrase, and what follows it as a hint: "The URL to request, http:// or https://." */
function splitHint(text: string): { head: string; hint: string } {
  const trimmed = text.replace(/\.$/, '');
  const cut = /[,;:]\s|\.\s|\s\(/.exec(trimmed);
  if (!cut) return { head: trimmed, hint: '' };
  const hint = trimmed
    .slice(cut.index + cut[0].length)
    .replace(/\)$/, '')
    .trim();
  return { head: trimmed.slice(0, cut.index).trim(), hint };
}

function upperFirst(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
