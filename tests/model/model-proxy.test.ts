// Which proxy the model client uses, read from HTTPS_PROXY, HTTP_PROXY and NO_PROXY as undici reads them.
import { describe, expect, it } from 'vitest';
import { modelProxyFor } from '../../agent/model/model-proxy.js';
import { maskUrlUserinfo } from '../../agent/url-userinfo.js';

const OPENAI = 'https://api.openai.com/v1';
const LOCAL = 'http://127.0.0.1:11434/v1';

describe('modelProxyFor', () => {
  it('is undefined when no proxy is set', () => {
    expect(modelProxyFor(OPENAI, {})).toBeUndefined();
    expect(modelProxyFor(LOCAL, { HTTPS_PROXY: 'http://proxy.internal:3128' })).toBeUndefined();
  });

  it('takes HTTPS_PROXY for an https:// model and HTTP_PROXY for an http:// one', () => {
    const env = { HTTPS_PROXY: 'http://secure.internal:3128', HTTP_PROXY: 'http://plain.internal:3128' };
    expect(modelProxyFor(OPENAI, env)).toEqual({
      url: 'http://secure.internal:3128',
      variable: 'HTTPS_PROXY',
    });
    expect(modelProxyFor(LOCAL, env)).toEqual({ url: 'http://plain.internal:3128', variable: 'HTTP_PROXY' });
  });

  it('takes HTTP_PROXY for an https:// model when HTTPS_PROXY is unset, as undici does', () => {
    expect(modelProxyFor(OPENAI, { HTTP_PROXY: 'http://plain.internal:3128' })).toEqual({
      url: 'http://plain.internal:3128',
      variable: 'HTTP_PROXY',
    });
  });

  it('prefers the lower-case variable, and a blank one turns the upper-case one off', () => {
    expect(modelProxyFor(OPENAI, { https_proxy: 'http://lower:1', HTTPS_PROXY: 'http://upper:2' })).toEqual({
      url: 'http://lower:1',
      variable: 'https_proxy',
    });
    expect(modelProxyFor(OPENAI, { https_proxy: '', HTTPS_PROXY: 'http://upper:2' })).toBeUndefined();
  });

  it('goes direct to a host NO_PROXY names, by exact host, subdomain, port or *', () => {
    const proxy = { HTTPS_PROXY: 'http://proxy.internal:3128', HTTP_PROXY: 'http://proxy.internal:3128' };
    const direct = (baseURL: string, noProxy: string) =>
      modelProxyFor(baseURL, { ...proxy, NO_PROXY: noProxy }) === undefined;
    expect(direct(OPENAI, 'api.openai.com')).toBe(true);
    expect(direct(OPENAI, 'localhost, .openai.com')).toBe(true);
    expect(direct(OPENAI, '*.openai.com')).toBe(true);
    expect(direct(OPENAI, 'openai.com:443')).toBe(true);
    expect(direct(OPENAI, 'openai.com:8443')).toBe(false);
    expect(direct(OPENAI, 'notopenai.com')).toBe(false);
    expect(direct(LOCAL, '127.0.0.1')).toBe(true);
    expect(direct(LOCAL, '127.0.0.1:11434')).toBe(true);
    expect(direct(LOCAL, '*')).toBe(true);
    expect(modelProxyFor(LOCAL, { ...proxy, no_proxy: 'example.com', NO_PROXY: '127.0.0.1' })).toEqual({
      url: 'http://proxy.internal:3128',
      variable: 'HTTP_PROXY',
    });
  });
});

describe('maskUrlUserinfo on proxy URLs', () => {
  it('hides the user and password of a proxy, and shows the rest', () => {
    expect(maskUrlUserinfo('http://alice:s3cret@proxy.internal:3128')).toBe('http://***@proxy.internal:3128');
    expect(maskUrlUserinfo('http://proxy.internal:3128/')).toBe('http://proxy.internal:3128/');
    expect(maskUrlUserinfo('//alice:s3cret@proxy.internal:3128')).toBe('//***@proxy.internal:3128');
    expect(maskUrlUserinfo('alice:s3cret@proxy.internal:3128')).toBe('***@proxy.internal:3128');
  });
});
