/**
 * Every repository of the store over one `Sql`, each method guarded: what both backends' open() spread
 * into their store. A new repository (or a new method of one) goes here once and works on both databases.
 */
import type { Dialect } from '../dialect';
import type { GatewayStore } from '../types';
import { accessMethods } from './access';
import { adminTokenMethods } from './admin-tokens';
import { approvalMethods } from './approvals';
import { clusterMethods } from './cluster';
import { deliveryMethods } from './deliveries';
import { guarded } from './guard';
import { inboundMethods } from './inbound';
import { scheduleMethods } from './schedules';
import { sessionMethods } from './sessions';
import type { Sql } from './sql';
import { usageMethods } from './usage';

export function storeMethods(q: Sql, dialect: Dialect): Omit<GatewayStore, 'close'> {
  return {
    ...guarded(sessionMethods(q), dialect),
    ...guarded(approvalMethods(q), dialect),
    ...guarded(usageMethods(q), dialect),
    ...guarded(deliveryMethods(q), dialect),
    ...guarded(inboundMethods(q), dialect),
    ...guarded(scheduleMethods(q), dialect),
    ...guarded(accessMethods(q), dialect),
    ...guarded(adminTokenMethods(q), dialect),
    ...guarded(clusterMethods(q), dialect),
  };
}
