// Renders runs and chat messages for a terminal: steps as they happen, questions, approval cards and results.
import { reviewText } from '../../agent/call-review/call-review.js';
import type { OutboundMessage, PlanChecklistStep } from '../../agent/chat-port.js';
import type { RunEvent } from '../../agent/run.js';
import { approvalProgressText } from '../chat/message-view.js';
import { PLAN_STEP_ICONS, PLAN_STEP_WORDS } from '../chat/plan-checklist-view.js';
import { VIEW_LIMITS } from '../chat/view-limits.js';
import { monospaceTable, toolDataView } from '../chat/view-tables.js';

import { bold, cyan, dim, green, red, yellow } from './terminal-colors.js';
import { renderMarkdown } from './terminal-markdown.js';

export { bold, cyan, dim, green, red, yellow } from './terminal-colors.js';

/** One line per event that shows progress; other events are told by chat messages. */
export function formatEvent(event: RunEvent): string | undefined {
  switch (event.type) {
    case 'model_turn': {
      const calls = event.toolCalls.map((call) => call.name).join(', ');
      return dim(
        `  · step ${event.step}: model ${calls ? `calls ${calls}` : 'answers'} (${event.promptTokens}+${event.completionTokens} tokens)`,
      );
    }
    case 'tool_call':
      return cyan(`  ▸ ${event.tool} ${truncate(JSON.stringify(event.args), 160)}`);
    case 'tool_result': {
      const mark = event.ok ? green('✓') : red('✗');
      const repeat = event.repeated ? dim(' (repeat, not run again)') : '';
      return `  ${mark} ${event.tool}: ${truncate(event.summary, 300)} ${dim(`${event.durationMs} ms`)}${repeat}`;
    }
    case 'context_compressed':
      return dim(`  · context compressed: ${event.beforeTokens} → ${event.afterTokens} tokens`);
    case 'tool_outputs_cut':
      return dim(
        `  · ${event.count} older tool ${event.count === 1 ? 'output' : 'outputs'} cut to their summaries (the last ${event.keptTurns} tool turns keep theirs)`,
      );
    case 'executing':
      return yellow(`  ! executing ${event.tool}`);
    default:
      return undefined;
  }
}

export function formatMessage(message: OutboundMessage): string | undefined {
  switch (message.kind) {
    case 'text':
      return message.tone === 'error'
        ? red(message.text)
        : message.tone === 'warning'
          ? yellow(message.text)
          : renderMarkdown(message.text);
    case 'status':
      return undefined;
    case 'question': {
      const choices = message.choices.map((choice, index) => `    ${index + 1}) ${choice}`).join('\n');
      return `${yellow('?')} ${bold(renderMarkdown(message.question))}${choices ? `\n${choices}` : ''}`;
    }
    case 'approval':
      return formatApproval(message);
    case 'plan':
      return formatPlan(message);
    case 'result': {
      const head = message.ok ? green('✔ ') : red('✘ ');
      const details = (message.details ?? [])
        .map((detail) => formatData(detail.data))
        .filter(Boolean)
        .join('\n');
      return `${head}${renderMarkdown(message.text)}${details ? `\n${details}` : ''}`;
    }
  }
}

/** The plan as a checklist: a heading, then a line per step (or only `steps`, when given). */
export function formatPlan(
  message: Extract<OutboundMessage, { kind: 'plan' }>,
  steps: PlanChecklistStep[] = message.steps,
): string {
  const heading =
    message.round > 1
      ? bold('Plan, made again after a step failed:')
      : bold(`Plan (${message.steps.length} steps):`);
  const lines = steps.map((step) => {
    const mark = PLAN_STEP_ICONS[step.state];
    const why = step.why ? dim(` — ${truncate(step.why, 160)}`) : '';
    const summary = step.summary ? `: ${truncate(step.summary, 200)}` : '';
    return `  ${mark} ${step.number}. ${step.tool} ${dim(PLAN_STEP_WORDS[step.state])}${summary}${why}`;
  });
  return steps === message.steps ? [heading, ...lines].join('\n') : lines.join('\n');
}

function formatApproval(message: Extract<OutboundMessage, { kind: 'approval' }>): string {
  const lines = [
    `${yellow(message.confirm ? '⚠ Confirm needed' : '⚠ Approval needed')}: ${bold(message.tool)} requested by ${message.requester}`,
    ...(message.confirm
      ? [
          `  why:       ${message.requester} did not ask for ${message.tool}; the model proposes it after reading outside data. Only they can confirm it (opsbot approve ${message.approvalId}) or deny it.`,
        ]
      : []),
    ...(message.willRun ? [`  will run:  ${message.willRun}`] : []),
    ...(message.impact ? [`  impact:    ${message.impact}`] : []),
    `  arguments: ${message.argumentsJson}`,
    ...(message.freeText?.length ? [`  free text, from the model: ${message.freeText.join(', ')}`] : []),
    `  reason:    ${message.reason || '(none given)'}`,
    ...(message.review ? [reviewerLine(message.review)] : []),
    `  approvers: ${message.approvers.join(', ')}`,
    ...(message.progress && !message.decision
      ? [`  approvals: ${approvalProgressText(message.progress)}`]
      : []),
    `  expires:   ${new Date(message.expiresAt).toISOString()}`,
    `  approval id: ${message.approvalId}`,
  ];
  if (message.decision) {
    lines.push(
      `  → ${message.decision.outcome} by ${message.decision.by} at ${new Date(message.decision.at).toISOString()}`,
    );
  }
  return lines.join('\n');
}

/** Tables in a tool's data as aligned columns (found as every platform finds them); other data as compact JSON. */
export function formatData(data: unknown): string {
  if (data === undefined || data === null) return '';
  const { tables } = toolDataView(data, VIEW_LIMITS.terminal);
  if (tables.length === 0) return dim(`  ${truncate(JSON.stringify(data), 600)}`);
  return tables
    .map((table) => {
      const [header = '', ...lines] = monospaceTable(table).split('\n').slice(1, -1);
      const title = table.title ? [`  ${bold(table.title)}`] : [];
      return [...title, dim(`  ${header}`), ...lines.map((line) => `  ${line}`)].join('\n');
    })
    .join('\n');
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** The reviewer's advice, a contradicted verdict in the warning colour. */
function reviewerLine(review: NonNullable<Extract<OutboundMessage, { kind: 'approval' }>['review']>): string {
  const text = `  reviewer:  ${reviewText(review)}`;
  return review.kind === 'verdict' && review.verdict === 'contradicted'
    ? yellow(`⚠ ${text.trimStart()}`)
    : text;
}
