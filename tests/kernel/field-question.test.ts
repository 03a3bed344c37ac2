// A missing argument is asked for in a sentence, from the field's description.
import { describe, expect, it } from 'vitest';
import { fieldQuestion } from '../../agent/field-question.js';

describe('fieldQuestion', () => {
  it.each([
    ['service', 'The service to restart', 'Which service should I restart?'],
    ['service', 'Which service to restart', 'Which service should I restart?'],
    ['name', 'Who to greet', 'Who should I greet?'],
    ['url', 'The URL to request, http:// or https://.', 'Which URL should I request? (http:// or https://)'],
    [
      'pattern',
      'Text to look for. Plain text unless regex is true.',
      'What text should I look for? (Plain text unless regex is true)',
    ],
    ['name', 'The DNS name, e.g. "api.example.com".', 'What is the DNS name? (e.g. "api.example.com")'],
    ['unit', 'A systemd unit name.', 'What is the systemd unit name?'],
    ['lines', 'How many lines to return (1-500)', 'How many lines should I return? (1-500)'],
    [
      'host',
      'Host name or IP address, e.g. "api.internal".',
      'What should `host` be? (Host name or IP address, e.g. "api.internal")',
    ],
    ['env', 'which environment?', 'Which environment?'],
    ['env', undefined, 'What should `env` be?'],
  ])('asks for %s described as %j', (field, description, question) => {
    expect(fieldQuestion(field, description)).toBe(question);
  });
});
