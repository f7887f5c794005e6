/**
 * GatewayMetrics: each recording method shows up in the Prometheus text under its name and labels,
 * durations in seconds, 429s counted from rate-limited calls, instances isolated from each other and from
 * prom-client's global registry, and process metrics only when asked for.
 */
import { register as globalRegistry } from 'prom-client';
import { GatewayMetrics } from '../../../src/gateway/admin';

describe('GatewayMetrics', () => {
  it('exports every recorded series', async () => {
    const m = new GatewayMetrics();
    m.inbound('slack', 'message');
    m.taskStarted('slack');
    m.taskFinished('slack', 'completed', 1500);
    m.platformCall('slack', 'chat.update', 'ok', 30);
    m.platformCall('slack', 'chat.update', 'rate_limited', 5);
    m.approvalDecided('allow', 'admin');
    m.modelRequest('timeout');
    m.firstOutbound('slack', 12);
    const text = await m.text();
    for (const line of [
      'penguin_gateway_inbound_events_total{platform="slack",kind="message"} 1',
      'penguin_gateway_tasks_started_total{platform="slack"} 1',
      'penguin_gateway_tasks_finished_total{platform="slack",status="completed"} 1',
      'penguin_gateway_task_duration_seconds_sum{platform="slack",status="completed"} 1.5',
      'penguin_gateway_platform_calls_total{platform="slack",method="chat.update",outcome="ok"} 1',
      'penguin_gateway_platform_calls_total{platform="slack",method="chat.update",outcome="rate_limited"} 1',
      'penguin_gateway_platform_rate_limited_total{platform="slack"} 1',
      'penguin_gateway_platform_call_seconds_count{platform="slack",method="chat.update"} 2',
      'penguin_gateway_approval_decisions_total{decision="allow",via="admin"} 1',
      'penguin_gateway_model_requests_total{status="timeout"} 1',
      'penguin_gateway_inbound_to_first_outbound_seconds_bucket{le="0.02",platform="slack"} 1',
      'penguin_gateway_inbound_to_first_outbound_seconds_bucket{le="0.01",platform="slack"} 0',
    ]) expect(text).toContain(line);
    expect(m.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it('keeps instances apart and stays off the global registry', async () => {
    const a = new GatewayMetrics();
    const b = new GatewayMetrics();
    a.inbound('telegram', 'message');
    expect(await a.text()).toContain('penguin_gateway_inbound_events_total{platform="telegram",kind="message"} 1');
    expect(await b.text()).not.toContain('platform="telegram"');
    expect(await globalRegistry.metrics()).not.toContain('penguin_gateway_');
  });

  it('adds process metrics only when asked', async () => {
    expect(await new GatewayMetrics().text()).not.toContain('process_resident_memory_bytes');
    expect(await new GatewayMetrics({ processMetrics: true }).text()).toContain('penguin_gateway_process_resident_memory_bytes');
  });

  it('records a negative or non-finite duration as zero', async () => {
    const m = new GatewayMetrics();
    m.taskFinished('web', 'aborted', -5);
    m.taskFinished('web', 'aborted', Number.NaN);
    expect(await m.text()).toContain('penguin_gateway_task_duration_seconds_sum{platform="web",status="aborted"} 0');
  });
});
