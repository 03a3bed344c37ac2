// What the kernel needs to run approvals: the audit log, and the permission rules that say who may decide.
import type { AuditLog } from './policy/audit-log.js';
import type { PermissionSettings } from './policy/permission-settings.js';

export interface ApprovalSettings {
  audit: AuditLog;
  permissions: PermissionSettings;
}
