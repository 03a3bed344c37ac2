// The `env:` list of a child process in the settings (a configured command, an MCP server over stdio): each entry
// `NAME` or `NAME=value`, checked by the rule the child's environment is built with.
import { z } from 'zod';
import { environmentEntryProblem } from './child-environment.js';

/** Describe it where it is used: what the child is differs. */
export const ChildEnvironmentEntriesSchema = z
  .array(
    z.string().superRefine((entry, ctx) => {
      const problem = environmentEntryProblem(entry);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  )
  .default([]);
