// The four classes of tool error the model sees, each worded so the model knows what to do next.

export type ToolErrorClass = 'invalid_argument' | 'transient' | 'permission_denied' | 'refused_by_policy';

const guidance: Record<ToolErrorClass, string> = {
  invalid_argument: 'Fix the arguments; do not retry the same call unchanged.',
  transient: 'This may be temporary: you may retry once, or report it.',
  permission_denied: 'Someone else must do this: tell the user who can, and do not retry.',
  refused_by_policy: 'Choose another approach; do not retry this call in another form.',
};

export interface ToolError {
  class: ToolErrorClass;
  message: string;
}

/** The JSON the model receives as the tool message for a failed call. */
export function toolErrorContent(tool: string, error: ToolError): string {
  return JSON.stringify({
    tool,
    ok: false,
    error: { class: error.class, message: error.message, what_to_do: guidance[error.class] },
  });
}

/**
 * Thrown by a tool whose arguments were wrong in a way only running it could tell, such as a query the server
 * cannot parse: the model gets `invalid_argument` with the message, and the tool's circuit breaker does not count
 * it, as the tool and its service are fine.
 */
export class ToolArgumentError extends Error {
  override name = 'ToolArgumentError';
}

/**
 * Thrown by a tool whose target refused it for want of rights (a 403, an MCP server's "permission denied"): the
 * model gets `permission_denied`, which tells it someone else must act, and the circuit breaker does not count
 * it, as the tool and its service work.
 */
export class ToolPermissionError extends Error {
  override name = 'ToolPermissionError';
}
