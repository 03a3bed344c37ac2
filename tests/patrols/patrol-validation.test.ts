// Patrol checks are validated against the real tools and the patrol's role when settings load: an unknown tool, a
// write or danger tool, a tool the role may not run, and bad arguments are settings errors with their lines.
import { describe, expect, it } from 'vitest';
import { settingsToolPolicy } from '../../agent/policy/settings-tool-policy.js';
import { ToolRegistry } from '../../agent/tool-registry.js';
import { parseSettings, settingsProblemsError } from '../../bot/config/load-settings.js';
import { patrolProblems } from '../../scheduled/patrol-validation.js';
import { createOpsTools } from '../../tools/index.js';

async function problemsOf(yaml: string) {
  const settings = parseSettings(yaml, 'opsbot.yaml');
  const registry = new ToolRegistry(await createOpsTools(settings.tools));
  const policy = settingsToolPolicy(settings.permissions, registry);
  const problems = patrolProblems(settings.patrols, registry, policy, settings.permissions);
  return { problems, error: settingsProblemsError(settings, problems) };
}

const commands = `
tools:
  allowed_executables: [/usr/bin/systemctl, /bin/systemctl]
  commands:
    restart_service:
      description: Restart a service.
      argv: [systemctl, restart, '{service}']
      risk: danger
      parameters:
        service: { description: The service, enum: [api, worker] }
`;

describe('patrol settings validation', () => {
  it('accepts read-only checks with valid arguments', async () => {
    const { problems } = await problemsOf(`
patrols:
  health:
    schedule: '* * * * *'
    channel: 'playground:ops'
    checks:
      - { id: api, tool: http_check, args: { url: 'http://127.0.0.1:8080/healthz' } }
      - { id: disk, tool: disk_usage, args: { paths: ['/'] }, severity: warn }
`);
    expect(problems).toEqual([]);
  });

  it('refuses a danger tool in a patrol, naming the patrol, the check and the line', async () => {
    const { problems, error } = await problemsOf(`${commands}
patrols:
  nightly:
    schedule: '0 3 * * *'
    channel: 'playground:ops'
    checks:
      - { id: fix, tool: restart_service, args: { service: api } }
`);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toContain(
      'restart_service, a danger tool; a patrol may only run read-only checks',
    );
    expect(error.message).toContain('patrols.nightly.checks[0].tool (line 17)');
  });

  it('refuses an unknown tool, bad arguments, and a tool the patrol role may not run', async () => {
    const { problems, error } = await problemsOf(`
permissions:
  patrol_role: narrow
  roles:
    narrow: { tools: [http_check], risks: [read] }
patrols:
  p1:
    schedule: '*/5 * * * *'
    channel: 'slack:C0123ABCD'
    checks:
      - { id: a, tool: htp_check, args: {} }
      - { id: b, tool: http_check, args: { url: 12 } }
      - { id: c, tool: disk_usage, args: { paths: ['/'] } }
`);
    expect(problems.map((p) => p.path.join('.'))).toEqual([
      'patrols.p1.checks.0.tool',
      'patrols.p1.checks.1.args.url',
      'patrols.p1.checks.2.tool',
    ]);
    expect(problems[0]!.message).toContain('"htp_check", which does not exist');
    expect(problems[2]!.message).toContain('role(s) narrow, which may not run disk_usage');
    expect(error.message).toMatch(/patrols\.p1\.checks\[1\]\.args\.url \(line 12\)/);
  });

  it('refuses a bad schedule, channel, time zone and duplicate check ids in the schema', () => {
    expect(() =>
      parseSettings(
        `
patrols:
  p:
    schedule: 'every five minutes'
    timezone: Mars/Olympus
    channel: 'teams:general'
    checks:
      - { id: a, tool: http_check }
      - { id: a, tool: http_check }
`,
        'opsbot.yaml',
      ),
    ).toThrowError(
      /schedule \(line 4\): a cron expression[\s\S]*timezone \(line 5\): an IANA time zone[\s\S]*channel \(line 6\): expected slack:<channel id>[\s\S]*check id "a" is used twice/,
    );
  });
});
