// What the kernel needs to hold calls for approval: the approval book, the audit log, the permissions.
import type { ApprovalBook } from './approvals.js';
import type { AuditLog } from './audit-log.js';
import type { PermissionSettings } from './permission-settings.js';

export interface ApprovalSettings {
  book: ApprovalBook;
  audit: AuditLog;
  permissions: PermissionSettings;
}
