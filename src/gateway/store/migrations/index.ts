/** Every migration in order. A new schema version is a new module appended here, never an edit of an old one. */
import { initial } from './001-initial';
import { platformProblem } from './002-platform-problem';
import { groupAccess } from './003-group-access';
import { deliveryShown } from './004-delivery-shown';
import { pairingNotified } from './005-pairing-notified';
import { schedules } from './006-schedules';
import { taskRuns } from './007-task-runs';
import { deliveryEvents } from './008-delivery-events';
import { cluster } from './009-cluster';
import { sessionBindingIndex } from './010-session-binding-index';
import type { Migration } from './types';

export const MIGRATIONS: readonly Migration[] = [initial, platformProblem, groupAccess, deliveryShown, pairingNotified, schedules, taskRuns, deliveryEvents, cluster, sessionBindingIndex];
export type { Migration } from './types';
