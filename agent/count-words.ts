// A count with its noun, for people: "1 step", "0 tool calls".

export function countWords(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}
