// Which route a group takes: the first whose `match` and `match_re` all hold on the group's common labels.
import type { PatrolChannel } from '../../scheduled/patrol-settings.js';
import type { AlertRoute, AlertSettings } from './alert-settings.js';

export type AlertDestination =
  | { kind: 'drop'; route: number }
  | { kind: 'post'; channel: PatrolChannel; route?: number; checks: AlertRoute['checks'] }
  /** Neither a route nor `alerts.channel` gives a channel. */
  | { kind: 'nowhere' };

export function routeMatches(route: AlertRoute, labels: Readonly<Record<string, string>>): boolean {
  for (const [name, value] of Object.entries(route.match)) {
    if (!Object.hasOwn(labels, name) || labels[name] !== value) return false;
  }
  for (const [name, pattern] of Object.entries(route.match_re)) {
    // As Alertmanager: anchored, and a missing label matches as the empty string.
    const value = Object.hasOwn(labels, name) ? labels[name]! : '';
    if (!new RegExp(`^(?:${pattern})$`).test(value)) return false;
  }
  return true;
}

export function destinationFor(
  settings: AlertSettings,
  labels: Readonly<Record<string, string>>,
): AlertDestination {
  const index = settings.routes.findIndex((route) => routeMatches(route, labels));
  const route = index === -1 ? undefined : settings.routes[index]!;
  if (route?.drop) return { kind: 'drop', route: index };
  const channel = route?.channel ?? settings.channel;
  if (!channel) return { kind: 'nowhere' };
  return {
    kind: 'post',
    channel,
    ...(route ? { route: index } : {}),
    checks: route?.checks ?? [],
  };
}
