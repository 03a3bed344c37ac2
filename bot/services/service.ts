// A long-lived part of the running bot (HTTP server, adapter, sweep, store) that serve starts and stops.

export interface ServiceReadiness {
  ok: boolean;
  /** What a person checking /readyz wants to know: which backend, which mode, why not ready. */
  detail: string;
  /** Reported in /readyz without deciding readiness (see ReadinessStatus.advisory). */
  advisory?: boolean;
}

export interface Service {
  /** Names the service in start-up errors, shutdown logs and, when it has a readiness check, /readyz. */
  readonly name: string;
  /** Resolves once the service does its work; a service that cannot start throws, and cleans up after itself. */
  start(): Promise<void>;
  /** Called once, and only after start succeeded. */
  stop(): Promise<void>;
  readiness?(): Promise<ServiceReadiness>;
}
