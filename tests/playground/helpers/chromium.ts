// Where the browser tests find Debian's Chromium, and the flags it runs with on a machine with no network.
export const CHROMIUM = '/usr/bin/chromium';

/** Without the background-networking flags, Chromium's own connections are refused here, many at a time. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
