// The one marker every redaction leaves behind, in a module of its own so that every masking module can use it
// without importing the Redactor (which uses them).

/** What a redacted credential becomes, so readers and tests can look for a single string. */
export const REDACTED = '[REDACTED]';
