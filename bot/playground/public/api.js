// The page's side of the playground API: JSON requests, and the live event stream with its reconnects.

/** The bot did not answer at all (stopped, restarting, or the network is down), as opposed to saying no. */
export class Unreachable extends Error {
  constructor() {
    super('opsbot cannot be reached right now.');
    this.name = 'Unreachable';
  }
}

/** Throws an Error carrying the server's own explanation, which the page shows as is. */
async function request(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
    });
  } catch {
    // fetch rejects only when no answer came; the browser's own words ("Failed to fetch") mean nothing to people.
    throw new Unreachable();
  }
  const text = await response.text();
  let data;
  try {
    data = text ? JSON.parse(text) : {};
  } catch {
    data = { error: text };
  }
  if (!response.ok) throw new Error(data.error || `${method} ${path} failed with ${response.status}`);
  return data;
}

export const api = {
  get: (path) => request('GET', path),
  post: (path, body) => request('POST', path, body),
};

/** A random id for this tab, so ephemeral replies reach only it; works outside secure contexts too. */
export function newClientId() {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * Follows /api/events. The browser reconnects by itself and sends Last-Event-ID, so the server replays what was
 * missed; if the stream is closed for good (the server restarted with another token), it starts over.
 *
 * @param {string} clientId
 * @param {{ onEvent: (type: string, data: any) => void, onState: (state: 'live'|'connecting'|'offline') => void }} handlers
 */
export function followEvents(clientId, handlers) {
  let source;
  let retry;
  const open = () => {
    source = new EventSource(`/api/events?client=${encodeURIComponent(clientId)}`);
    source.addEventListener('open', () => handlers.onState('live'));
    source.addEventListener('error', () => {
      if (source.readyState === EventSource.CLOSED) {
        handlers.onState('offline');
        clearTimeout(retry);
        retry = setTimeout(open, 3000);
      } else {
        handlers.onState('connecting');
      }
    });
    for (const type of ['ready', 'message', 'channel', 'ephemeral']) {
      source.addEventListener(type, (event) => handlers.onEvent(type, JSON.parse(event.data)));
    }
  };
  open();
  return () => {
    clearTimeout(retry);
    source.close();
  };
}
