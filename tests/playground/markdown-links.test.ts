// Links in the playground's messages: a URL becomes a link, its sentence's punctuation stays text, and a scheme
// named on its own ("http:// or https://") is not a link at all.
import { describe, expect, it } from 'vitest';
// @ts-expect-error: the page's own script, plain JavaScript without types
import { renderMarkdown } from '../../bot/playground/public/markdown.js';

const render = (text: string): string => renderMarkdown(text) as string;
const hrefs = (html: string) => [...html.matchAll(/href="([^"]*)"/g)].map((match) => match[1]);

describe('links in the playground', () => {
  it('does not link a scheme named on its own', () => {
    const html = render('The URL to request (http:// or https://).');
    expect(hrefs(html)).toEqual([]);
    expect(html).toContain('(http:// or https://).');
  });

  it('links a URL and leaves the closing parenthesis and full stop to the sentence', () => {
    const html = render('See the runbook (https://wiki.internal/runbooks/api).');
    expect(hrefs(html)).toEqual(['https://wiki.internal/runbooks/api']);
    expect(html).toContain('</a>).</p>');
  });

  it('links a labelled link by its URL', () => {
    expect(hrefs(render('[the dashboard](https://grafana.internal/d/1)'))).toEqual([
      'https://grafana.internal/d/1',
    ]);
  });
});
