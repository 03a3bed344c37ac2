// Where the openai SDK sends a model's requests: the base URL without its user-info (fetch refuses a URL with
// credentials, so such a server always looked down), and those credentials as an `Authorization: Basic` header.
import { splitUrlCredentials } from '../url-userinfo.js';

export interface ModelEndpointOptions {
  baseURL?: string;
  defaultHeaders?: Record<string, string>;
}

/** The SDK options for `baseURL`; spread into `new OpenAI({...})`. */
export function modelEndpoint(baseURL: string | undefined): ModelEndpointOptions {
  if (baseURL === undefined) return {};
  const { url, authorization } = splitUrlCredentials(baseURL);
  // Given after the SDK's own `Authorization: Bearer <key>`, so the URL's credentials win (config checks
  // refuse both being set).
  return { baseURL: url, ...(authorization ? { defaultHeaders: { authorization } } : {}) };
}
