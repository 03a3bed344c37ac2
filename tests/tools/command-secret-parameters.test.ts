// A configured command's `secret: true` parameter: named on the tool, masked in its "will run" line and result,
// and refused at start-up on a parameter that is not free text.
import { afterAll, describe, expect, it } from 'vitest';
import { freeTextParameters } from '../../agent/policy/secret-arguments.js';
import { Redactor } from '../../agent/redaction.js';
import { callPreview } from '../../agent/run-machine/call-preview.js';
import { toolParametersSchema } from '../../agent/tool.js';
import { commandTool } from './helpers/command-settings.js';
import { removeTempDirs } from './helpers/temp-dir.js';

afterAll(removeTempDirs);

const echo = { allowed: ['/usr/bin/echo'] };
const setKey = {
  description: 'Sets the API key of a service, for testing secret parameters.',
  argv: ['/usr/bin/echo', '{service}', '{key}', '{note}'],
  risk: 'danger',
  parameters: {
    service: { description: 'The service', pattern: '[a-z]+' },
    key: { description: 'The new key', secret: true },
    note: { description: 'A note', required: false },
  },
};

describe('secret command parameters', () => {
  it('names the secret on the tool, masks it in what will run, and calls out the free text', async () => {
    const tool = await commandTool('set_key', setKey, echo);
    expect(tool.secretParameters).toEqual(['key']);
    const preview = callPreview(tool, { service: 'api', key: 'hunter2hunter2' }, new Redactor());
    expect(preview.willRun).toBe('/usr/bin/echo api ‹secret, 14 chars›');
    // The pattern reaches the JSON Schema, so `service` is not free text; `note` is.
    const properties = toolParametersSchema(tool.input).properties as Record<string, { pattern?: string }>;
    expect(properties.service?.pattern).toBe('^(?:[a-z]+)$');
    expect(freeTextParameters(tool)).toEqual(['note']);
  });

  it('refuses secret: true on a number or an enum at start-up', async () => {
    for (const key of [
      { description: 'A number', type: 'integer', secret: true },
      { description: 'A choice', enum: ['a', 'b'], secret: true },
    ]) {
      await expect(
        commandTool('set_key', { ...setKey, parameters: { ...setKey.parameters, key } }, echo),
      ).rejects.toThrow(/parameters\.key\.secret: only a string parameter without an enum can be secret/);
    }
  });
});
