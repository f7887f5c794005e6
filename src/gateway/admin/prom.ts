/**
 * The parts of prom-client the gateway uses, each required from its own module: the package's index also
 * loads its Pushgateway (and with it https, TLS and zlib), Summary and cluster aggregation, about 1 MB of
 * heap and some milliseconds of every start that /metrics never uses. Types come from the package's own.
 */
import type * as Prom from 'prom-client';

export const Registry = require('prom-client/lib/registry') as typeof Prom.Registry;
export type Registry = Prom.Registry;
export const Counter = require('prom-client/lib/counter') as typeof Prom.Counter;
export type Counter<T extends string = string> = Prom.Counter<T>;
export const Gauge = require('prom-client/lib/gauge') as typeof Prom.Gauge;
export type Gauge<T extends string = string> = Prom.Gauge<T>;
export const Histogram = require('prom-client/lib/histogram') as typeof Prom.Histogram;
export type Histogram<T extends string = string> = Prom.Histogram<T>;
export const collectDefaultMetrics = require('prom-client/lib/defaultMetrics') as typeof Prom.collectDefaultMetrics;
