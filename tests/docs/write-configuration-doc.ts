// `npm run docs:config`: rewrites the generated parts of docs/configuration.md from the settings and environment
// schemas.
import { readFileSync, writeFileSync } from 'node:fs';
import {
  ENVIRONMENT_END,
  ENVIRONMENT_START,
  renderEnvironmentReference,
  renderSettingsReference,
  replaceBetween,
  SETTINGS_END,
  SETTINGS_START,
} from './settings-reference.js';

const path = new URL('../../docs/configuration.md', import.meta.url);
const settings = renderSettingsReference();
const environment = renderEnvironmentReference();
const undescribed = [...settings.undescribed, ...environment.undescribed];
if (undescribed.length > 0) {
  console.error(`Add a .describe() text to these keys in their schema first: ${undescribed.join(', ')}`);
  process.exit(1);
}
let text = readFileSync(path, 'utf8');
text = replaceBetween(text, SETTINGS_START, SETTINGS_END, settings.text);
text = replaceBetween(text, ENVIRONMENT_START, ENVIRONMENT_END, environment.text);
writeFileSync(path, text);
console.log('docs/configuration.md: settings and environment reference rewritten');
