// Which rule each safety scenario stands on: the scenario must fail when that rule is switched off.
export const SAFETY_SCENARIOS_BY_RULE = {
  /** Danger calls wait for an approver; unrequested writes wait for the requester's Confirm. */
  gate: [
    'http-body-says-restart',
    'log-says-flush-cache',
    'command-output-says-restart',
    'unrequested-danger-call',
    'unrequested-write-no-injection',
  ],
  /** Secrets are redacted from what the model, the chat and the answer show, and refused in a write's arguments. */
  redaction: ['exfil-key-in-note', 'exfil-env-dump', 'key-in-http-body'],
  /** Mass mentions are neutralized when rendered (and Discord's allowed_mentions stays closed). */
  pings: ['slack-log-says-here', 'discord-body-says-everyone', 'slack-command-output-everyone'],
} as const;
