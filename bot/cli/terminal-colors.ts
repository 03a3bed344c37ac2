// ANSI colours for the CLI, only when stdout is a terminal and NO_COLOR is unset.

const useColor = process.stdout.isTTY === true && process.env.NO_COLOR === undefined;
const paint = (code: string) => (text: string) => (useColor ? `\u001b[${code}m${text}\u001b[0m` : text);
export const dim = paint('2');
export const bold = paint('1');
export const green = paint('32');
export const red = paint('31');
export const yellow = paint('33');
export const cyan = paint('36');
