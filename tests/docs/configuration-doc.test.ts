// docs/configuration.md lists every setting and variable as the schemas define them: its generated parts must match.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  between,
  ENVIRONMENT_END,
  ENVIRONMENT_START,
  renderEnvironmentReference,
  renderSettingsReference,
  SETTINGS_END,
  SETTINGS_START,
} from './settings-reference.js';

const STALE = 'docs/configuration.md is stale: run `npm run docs:config` and commit the page';

describe('docs/configuration.md', () => {
  const text = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');

  it('lists every opsbot.yaml key with its type, default and meaning, as the schema has them', () => {
    expect(between(text, SETTINGS_START, SETTINGS_END), STALE).toBe(renderSettingsReference().text);
  });

  it('lists every environment variable as the environment schema has it', () => {
    expect(between(text, ENVIRONMENT_START, ENVIRONMENT_END), STALE).toBe(renderEnvironmentReference().text);
  });

  it('has a .describe() text for every key and variable, so the page says what each one does', () => {
    expect([...renderSettingsReference().undescribed, ...renderEnvironmentReference().undescribed]).toEqual(
      [],
    );
  });
});
