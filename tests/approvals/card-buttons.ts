// The buttons of an approval card that takes grants, with the default `permissions.grant_durations`.
export const CARD_BUTTONS = [
  'Approve',
  'Approve for 15m',
  'Approve for 1h',
  'Approve for 4h',
  'Deny',
  'Cancel run',
];
