// The environment: defaults, empty values as unset, errors naming the variable, Slack and Discord cross-checks.
import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../agent/errors.js';
import {
  discordConfigured,
  environmentWarnings,
  metricsEnabled,
  modelConfigured,
  playgroundEnabled,
  readEnvironment,
  slackMode,
} from '../../bot/config/environment.js';
import { InvalidSettingsError, type SettingsProblem } from '../../bot/config/settings-problem.js';

function problems(env: NodeJS.ProcessEnv): SettingsProblem[] {
  try {
    readEnvironment(env);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidSettingsError);
    expect((error as InvalidSettingsError).code).toBe(ErrorCode.InvalidSettings);
    return [...(error as InvalidSettingsError).problems];
  }
  return [];
}

describe('readEnvironment', () => {
  it('applies the documented defaults', () => {
    expect(readEnvironment({})).toEqual({
      PORT: 3000,
      HOST: '127.0.0.1',
      OPSBOT_STORE_URL: 'sqlite://./data/opsbot.sqlite',
      OPSBOT_DATA_DIR: './data',
      OPSBOT_PLAYGROUND: 'on',
      OPSBOT_ROLE: 'all',
      OPSBOT_METRICS: 'off',
      OPENAI_MODEL: 'gpt-4o-mini',
      SLACK_SLASH_COMMAND: '/ops',
      LOG_LEVEL: 'info',
    });
  });

  it('treats empty and blank values as unset, as a copied .env template leaves them', () => {
    const environment = readEnvironment({
      PORT: '',
      OPENAI_BASE_URL: '',
      SLACK_BOT_TOKEN: '  ',
      LOG_LEVEL: '',
    });
    expect(environment.PORT).toBe(3000);
    expect(environment.OPENAI_BASE_URL).toBeUndefined();
    expect(environment.SLACK_BOT_TOKEN).toBeUndefined();
    expect(environment.LOG_LEVEL).toBe('info');
  });

  it('reads a full configuration', () => {
    const environment = readEnvironment({
      PORT: '8080',
      OPSBOT_CONFIG: '/etc/opsbot.yaml',
      OPSBOT_STORE_URL: 'redis://127.0.0.1:6379',
      OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      OPENAI_MODEL: 'qwen2.5:7b-instruct',
      SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
      SLACK_APP_TOKEN: 'xapp-1-A1-abc',
      DISCORD_TOKEN: 'discord-token',
      DISCORD_APPLICATION_ID: '112233445566778899',
      LOG_LEVEL: 'debug',
      UNRELATED: 'ignored',
    });
    expect(environment).toMatchObject({ PORT: 8080, OPSBOT_CONFIG: '/etc/opsbot.yaml', LOG_LEVEL: 'debug' });
    expect(environment).not.toHaveProperty('UNRELATED');
  });

  it('names each bad variable and what it expects, all at once', () => {
    const found = problems({
      PORT: 'eighty',
      OPENAI_BASE_URL: '127.0.0.1:11434/v1',
      LOG_LEVEL: 'verbose',
      OPSBOT_PLAYGROUND: 'yes',
      OPSBOT_STORE_URL: 'postgres://db',
    });
    expect(found).toEqual([
      { key: 'PORT', message: 'expected a port number 0-65535, found "eighty"' },
      { key: 'OPSBOT_STORE_URL', message: expect.stringContaining('sqlite://, redis:// or rediss://') },
      { key: 'OPSBOT_PLAYGROUND', message: 'expected on or off, found "yes"' },
      { key: 'OPENAI_BASE_URL', message: 'expected an http:// or https:// URL, found "127.0.0.1:11434/v1"' },
      {
        key: 'LOG_LEVEL',
        message: 'expected one of trace, debug, info, warn, error, fatal, silent, found "verbose"',
      },
    ]);
  });

  it('takes the proxy variables in either case, and names a proxy that is not a URL, hiding its password', () => {
    const proxies = { https_proxy: 'http://proxy.internal:3128', NO_PROXY: 'localhost,.internal' };
    expect(readEnvironment(proxies)).toMatchObject(proxies);
    expect(problems({ HTTP_PROXY: 'alice:hunter2@proxy.internal:3128' })).toEqual([
      {
        key: 'HTTP_PROXY',
        message: 'expected a proxy URL such as http://proxy.internal:3128, found "***@proxy.internal:3128"',
      },
    ]);
    expect(problems({ HTTPS_PROXY: 'socks://alice:hunter2@proxy.internal:1080' })[0]?.message).toBe(
      'expected a proxy URL such as http://proxy.internal:3128, found "socks://***@proxy.internal:1080"',
    );
  });

  it('rejects a port out of range', () => {
    expect(problems({ PORT: '70000' })[0]?.key).toBe('PORT');
  });

  it('never echoes a secret, and hides URL credentials', () => {
    const error = (() => {
      try {
        readEnvironment({ SLACK_BOT_TOKEN: 'xapp-1-SECRETVALUE', SLACK_API_URL: 'ftp://user:hunter2@host' });
      } catch (caught) {
        return caught as Error;
      }
      throw new Error('expected an error');
    })();
    expect(error.message).not.toContain('SECRETVALUE');
    expect(error.message).not.toContain('hunter2');
  });
});

describe('Slack cross-checks', () => {
  it('need a bot token when any SLACK_ variable is set', () => {
    expect(problems({ SLACK_SIGNING_SECRET: 'abc123' })).toEqual([
      {
        key: 'SLACK_BOT_TOKEN',
        message: 'missing; Slack needs the bot token (xoxb-…) because SLACK_SIGNING_SECRET is set',
      },
    ]);
  });

  it('need a signing secret or an app token with the bot token', () => {
    const [problem] = problems({ SLACK_BOT_TOKEN: 'xoxb-1' });
    expect(problem?.key).toBe('SLACK_SIGNING_SECRET');
    expect(problem?.message).toContain('SLACK_APP_TOKEN');
  });

  it('accept HTTP mode and Socket Mode', () => {
    const http = readEnvironment({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 'abc123' });
    const socket = readEnvironment({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' });
    expect([slackMode(http), slackMode(socket), slackMode(readEnvironment({}))]).toEqual([
      'http',
      'socket',
      undefined,
    ]);
  });

  it('say clearly when a token sits in the wrong variable', () => {
    expect(problems({ SLACK_BOT_TOKEN: 'xapp-1-A', SLACK_SIGNING_SECRET: 'abc' })).toEqual([
      {
        key: 'SLACK_BOT_TOKEN',
        message:
          'holds a Slack app-level token (xapp-); it belongs in SLACK_APP_TOKEN. ' +
          'SLACK_BOT_TOKEN takes the bot token (xoxb-…) from OAuth & Permissions',
      },
    ]);
    expect(problems({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xoxb-2' })[0]?.message).toContain(
      'it belongs in SLACK_BOT_TOKEN',
    );
    expect(problems({ SLACK_BOT_TOKEN: 'xoxp-1', SLACK_SIGNING_SECRET: 'abc' })[0]?.message).toContain(
      'a Slack user token',
    );
    expect(problems({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 'xoxb-1' })[0]?.key).toBe(
      'SLACK_SIGNING_SECRET',
    );
    expect(problems({ DISCORD_TOKEN: 'xoxb-1' })[0]?.key).toBe('DISCORD_TOKEN');
  });
});

describe('Discord cross-checks', () => {
  it('need the token when the other DISCORD_ variables are set', () => {
    expect(problems({ DISCORD_APPLICATION_ID: '1234' })).toEqual([
      {
        key: 'DISCORD_TOKEN',
        message: 'missing; Discord needs the bot token because DISCORD_APPLICATION_ID is set',
      },
    ]);
  });

  it('refuse the "Bot " prefix and a non-numeric application id', () => {
    const found = problems({ DISCORD_TOKEN: 'Bot abc', DISCORD_APPLICATION_ID: 'my-app' });
    expect(found.map((problem) => problem.key)).toEqual(['DISCORD_APPLICATION_ID', 'DISCORD_TOKEN']);
  });

  it('report whether Discord is configured', () => {
    expect(discordConfigured(readEnvironment({ DISCORD_TOKEN: 'abc' }))).toBe(true);
    expect(discordConfigured(readEnvironment({}))).toBe(false);
  });
});

describe('playground exposure', () => {
  it('needs a token when the server listens beyond this machine', () => {
    expect(problems({ HOST: '0.0.0.0' })[0]?.key).toBe('OPSBOT_PLAYGROUND_TOKEN');
    expect(
      problems({ HOST: '0.0.0.0', OPSBOT_PLAYGROUND_TOKEN: '25c7e3da7a0979f2f5404add62db40d6' }),
    ).toEqual([]);
    expect(problems({ HOST: '0.0.0.0', OPSBOT_PLAYGROUND: 'off' })).toEqual([]);
    expect(problems({ HOST: 'localhost' })).toEqual([]);
  });

  it('is on by default', () => {
    expect(playgroundEnabled(readEnvironment({}))).toBe(true);
    expect(playgroundEnabled(readEnvironment({ OPSBOT_PLAYGROUND: 'off' }))).toBe(false);
  });
});

describe('modelConfigured', () => {
  it('is true with a key or a base URL, false with neither', () => {
    expect(modelConfigured(readEnvironment({}))).toBe(false);
    expect(modelConfigured(readEnvironment({ OPENAI_API_KEY: 'sk-1' }))).toBe(true);
    expect(modelConfigured(readEnvironment({ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' }))).toBe(true);
    expect(modelConfigured(readEnvironment({ OPENAI_MODEL: 'llama3' }))).toBe(false);
  });
});

describe('environmentWarnings', () => {
  it('says that OPENAI_MODEL alone uses no model, and is quiet when the model is configured or not asked for', () => {
    expect(environmentWarnings({ OPENAI_MODEL: 'qwen2.5:7b-instruct' })).toEqual([
      expect.stringMatching(
        /^OPENAI_MODEL=qwen2\.5:7b-instruct is set, but neither OPENAI_BASE_URL nor OPENAI_API_KEY is, so no model is used/,
      ),
    ]);
    expect(environmentWarnings({ OPENAI_MODEL: 'm', OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' })).toEqual(
      [],
    );
    expect(environmentWarnings({ OPENAI_MODEL: 'm', OPENAI_API_KEY: 'sk-1' })).toEqual([]);
    expect(environmentWarnings({ OPENAI_MODEL: ' ' })).toEqual([]);
    expect(environmentWarnings({})).toEqual([]);
  });
});

describe('metrics exposure', () => {
  it('is off by default, and takes on or off only', () => {
    expect(metricsEnabled(readEnvironment({}))).toBe(false);
    expect(metricsEnabled(readEnvironment({ OPSBOT_METRICS: 'on' }))).toBe(true);
    expect(problems({ OPSBOT_METRICS: 'yes' })).toEqual([
      { key: 'OPSBOT_METRICS', message: 'expected on or off, found "yes"' },
    ]);
  });

  it('needs the playground token when the server listens beyond this machine, playground or not', () => {
    const exposed = problems({ HOST: '0.0.0.0', OPSBOT_METRICS: 'on', OPSBOT_PLAYGROUND: 'off' });
    expect(exposed.map((problem) => problem.key)).toEqual(['OPSBOT_METRICS']);
    expect(exposed[0]?.message).toMatch(/OPSBOT_PLAYGROUND_TOKEN .*Authorization: Bearer/);
    expect(
      problems({
        HOST: '0.0.0.0',
        OPSBOT_METRICS: 'on',
        OPSBOT_PLAYGROUND_TOKEN: '25c7e3da7a0979f2f5404add62db40d6',
      }),
    ).toEqual([]);
    expect(problems({ HOST: '::1', OPSBOT_METRICS: 'on' })).toEqual([]);
  });
});
