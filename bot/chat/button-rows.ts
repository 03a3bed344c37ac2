// A message's buttons in rows: a new row where a button's `row` changes, and where a row is full.
import type { ViewButton } from './message-view-types.js';

export function buttonRows(buttons: readonly ViewButton[], perRow: number): ViewButton[][] {
  const rows: ViewButton[][] = [];
  let current: ViewButton[] = [];
  let row: number | undefined;
  for (const button of buttons) {
    if (current.length > 0 && ((button.row ?? 0) !== row || current.length === perRow)) {
      rows.push(current);
      current = [];
    }
    row = button.row ?? 0;
    current.push(button);
  }
  if (current.length > 0) rows.push(current);
  return rows;
}
