// `/ops plan <task>`: a task that runs on the plan engine (plan, execute, answer) whatever its channel's default.

/** The task of a `plan …` command, `''` for `plan` alone; undefined for any other text. */
export function parsePlanCommand(text: string): { task: string } | undefined {
  const match = /^plan(?:\s+([\s\S]*))?$/i.exec(text.trim());
  if (!match) return undefined;
  return { task: (match[1] ?? '').trim() };
}

export function planUsage(slashCommand: string): string {
  return `\`${slashCommand} plan\` needs a task, e.g. \`${slashCommand} plan why is checkout slow?\`: the model plans its checks first, they run, and it answers from their results.`;
}
