// The documentation holds together: every relative link in the README, CONTRIBUTING.md and docs/ reaches a file
// and, with an anchor, a heading there; the README stays a short front door that links to every page.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const docPages = readdirSync(join(root, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);
const pages = ['README.md', 'CONTRIBUTING.md', ...docPages];

/** The text outside fenced code blocks and inline code, where a link is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** Relative link targets: `[text](target)` and `![alt](target)`, not web addresses. */
function relativeLinks(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] ?? '')
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** GitHub's anchors for a page's headings (github-slugger: lower case, punctuation dropped, spaces to dashes). */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  const withoutCode = markdown.replace(/^```[\s\S]*?^```/gm, '');
  for (const match of withoutCode.matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const slug = (match[1] ?? '')
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

function read(path: string): string {
  return readFileSync(join(root, path), 'utf8');
}

describe('documentation links', () => {
  it('finds links to check (a check that saw none would pass for nothing)', () => {
    expect(pages.flatMap((page) => relativeLinks(read(page))).length).toBeGreaterThan(50);
  });

  it('resolve to a file, and an anchor to a heading of that file', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const target of relativeLinks(read(page))) {
        const [pathPart = '', anchor] = target.split('#');
        const file = pathPart === '' ? page : relative(root, join(root, dirname(page), decodeURI(pathPart)));
        if (!existsSync(join(root, file))) {
          broken.push(`${page}: ${target} (no file ${file})`);
          continue;
        }
        if (anchor !== undefined && file.endsWith('.md') && !anchors(read(file)).has(anchor))
          broken.push(`${page}: ${target} (no heading #${anchor} in ${file})`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('gives GitHub anchors as GitHub makes them', () => {
    expect([
      ...anchors("## Scale out: `npm run bench -- scale`\n## The playground's limits\n## A\n## A"),
    ]).toEqual(['scale-out-npm-run-bench----scale', 'the-playgrounds-limits', 'a', 'a-1']);
  });
});

describe('the README', () => {
  const readme = read('README.md');

  it('is a front door of at most 150 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(150);
  });

  it('links to every page under docs/ and to CONTRIBUTING.md', () => {
    const linked = new Set(relativeLinks(readme).map((target) => target.split('#')[0]));
    expect([...docPages, 'CONTRIBUTING.md'].filter((page) => !linked.has(page))).toEqual([]);
  });

  it('says which Node versions opsbot runs on', () => {
    expect(readme).toContain('Node 22.13 or newer (Node 24 LTS recommended)');
  });
});

describe('each docs page', () => {
  it.each(docPages)('%s links back to the README', (page) => {
    expect(relativeLinks(read(page))).toContain('../README.md');
  });
});
