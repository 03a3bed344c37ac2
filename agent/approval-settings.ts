// What the kernel needs to run approvals: the book that settles them, the audit log, and the permission rules.
import type { ApprovalBook } from './policy/approvals.js';
import type { AuditLog } from './policy/audit-log.js';
import type { PermissionSettings } from './policy/permission-settings.js';

export interface ApprovalSettings {
  book: ApprovalBook;
  audit: AuditLog;
  permissions: PermissionSettings;
}
