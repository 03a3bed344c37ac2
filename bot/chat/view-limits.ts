// Each platform's size limits, in one table: the view splits and trims to them, adapters paginate with them.

/** The chat platforms, and the terminal of `opsbot run`, which prints tool tables too. */
export type ViewPlatform = 'slack' | 'discord' | 'playground' | 'terminal';

export interface ViewLimits {
  /** The most one text or code block may weigh; longer text is split at line breaks. */
  textChars: number;
  /** What one character weighs once the platform has escaped it; see `splitText`. */
  weight?: (character: string) => number;
  /** Text longer than this is shown as a preview, and attached whole as a file. */
  attachAfterChars: number;
  previewChars: number;
  headingChars: number;
  buttonLabelChars: number;
  /** Buttons one message may carry (question choices beyond this are left to a typed reply). */
  buttons: number;
  fieldsPerBlock: number;
  fieldChars: number;
  table: { rows: number; columns: number; cellChars: number };
  /** Plain values from a tool's data shown as fields next to its tables. */
  dataFields: number;
  /** Whether the rest of a tool's data (nested objects) is shown, collapsed, as JSON. */
  rawData: boolean;
  /** For adapters grouping their rendered blocks into messages (`paginate`). */
  page: { items: number; size: number };
}

/** Slack escapes `&`, `<` and `>` as entities in mrkdwn. */
export function slackWeight(character: string): number {
  return character === '&' ? 5 : character === '<' || character === '>' ? 4 : 1;
}

export const VIEW_LIMITS = {
  slack: {
    // A section holds 3,000 characters; the rest is room for a label or a tone emoji in front.
    textChars: 2_900,
    weight: slackWeight,
    attachAfterChars: 12_000,
    previewChars: 1_500,
    headingChars: 150,
    buttonLabelChars: 75,
    buttons: 50,
    fieldsPerBlock: 10,
    fieldChars: 1_900,
    table: { rows: 40, columns: 8, cellChars: 40 },
    dataFields: 10,
    rawData: false,
    page: { items: 50, size: 40_000 },
  },
  discord: {
    // Message content holds 2,000 characters, an embed's description 4,096, and all embeds 6,000 together.
    textChars: 1_990,
    attachAfterChars: 12_000,
    previewChars: 1_500,
    headingChars: 256,
    buttonLabelChars: 80,
    buttons: 25,
    fieldsPerBlock: 25,
    fieldChars: 1_024,
    table: { rows: 25, columns: 6, cellChars: 30 },
    dataFields: 25,
    rawData: false,
    page: { items: 10, size: 6_000 },
  },
  playground: {
    textChars: 100_000,
    attachAfterChars: Number.POSITIVE_INFINITY,
    previewChars: 100_000,
    headingChars: 300,
    buttonLabelChars: 100,
    buttons: 50,
    fieldsPerBlock: 12,
    fieldChars: 2_000,
    table: { rows: 50, columns: 12, cellChars: 300 },
    dataFields: 12,
    rawData: true,
    page: { items: 1_000, size: Number.POSITIVE_INFINITY },
  },
  terminal: {
    textChars: 100_000,
    attachAfterChars: Number.POSITIVE_INFINITY,
    previewChars: 100_000,
    headingChars: 200,
    buttonLabelChars: 80,
    buttons: 50,
    fieldsPerBlock: 12,
    fieldChars: 2_000,
    table: { rows: 50, columns: 8, cellChars: 40 },
    dataFields: 12,
    rawData: false,
    page: { items: 1_000, size: Number.POSITIVE_INFINITY },
  },
} as const satisfies Record<ViewPlatform, ViewLimits>;
