import type { ApproveFn, ToolPermission } from '../../../src/core/interfaces';
import { APPROVAL_MODES, createApprover, decideApproval, isApprovalMode, stricterApproval, widensApproval, withCommandPolicy, type ApprovalMode } from '../../../src/core/state/approval';
import { commandPolicyCheck } from '../../../src/core/state/command-policy';
import { call, exec } from './helpers';

/** A host that answers `answer` and counts how often it was asked. */
function host(answer: 'allow' | 'deny' = 'allow') {
  const asked: string[] = [];
  const ask: ApproveFn = async (tc) => {
    asked.push(tc.payload.tool_call_id);
    return answer;
  };
  return { ask, asked };
}

const perms: (ToolPermission | undefined)[] = ['r', 'rw', undefined];

describe('decideApproval', () => {
  // mode × permission → decision when the host would answer "deny" ("ask" marks that the host was consulted).
  const table: [ApprovalMode, ToolPermission | undefined, 'allow' | 'deny' | 'ask'][] = [
    ['allow-all', 'r', 'allow'],
    ['allow-all', 'rw', 'allow'],
    ['allow-all', undefined, 'allow'],
    ['deny-all', 'r', 'deny'],
    ['deny-all', 'rw', 'deny'],
    ['deny-all', undefined, 'deny'],
    ['read-only', 'r', 'allow'],
    ['read-only', 'rw', 'ask'],
    ['read-only', undefined, 'ask'],
    ['always-ask', 'r', 'ask'],
    ['always-ask', 'rw', 'ask'],
    ['always-ask', undefined, 'ask'],
  ];

  it.each(table)('%s with permission %s → %s', async (mode, permission, expected) => {
    const h = host('deny');
    const decision = await decideApproval(mode, permission, call('read_file', { file_path: 'a' }), h.ask);
    if (expected === 'ask') {
      expect(h.asked).toEqual(['call_1']);
      expect(decision).toBe('deny');
      const allowing = host('allow');
      expect(await decideApproval(mode, permission, call('read_file', {}), allowing.ask)).toBe('allow');
    } else {
      expect(h.asked).toEqual([]);
      expect(decision).toBe(expected);
    }
  });

  it.each(APPROVAL_MODES.flatMap((m) => perms.map((p) => [m, p] as const)))('the command policy vetoes before %s (permission %s) without asking', async (mode, permission) => {
    const h = host('allow');
    expect(await decideApproval(mode, permission, exec('rm -rf /'), h.ask, commandPolicyCheck())).toBe('forbidden');
    expect(h.asked).toEqual([]);
  });

  it('lets harmless commands through the policy to the mode', async () => {
    const h = host('allow');
    expect(await decideApproval('always-ask', 'rw', exec('ls'), h.ask, commandPolicyCheck())).toBe('allow');
    expect(h.asked).toHaveLength(1);
  });

  it('turns a throwing or nonsensical host answer into deny', async () => {
    const throwing: ApproveFn = async () => {
      throw new Error('card failed');
    };
    expect(await decideApproval('always-ask', 'rw', exec('ls'), throwing)).toBe('deny');
    const odd = (async () => 'maybe') as unknown as ApproveFn;
    expect(await decideApproval('always-ask', 'rw', exec('ls'), odd)).toBe('deny');
  });
});

describe('createApprover / withCommandPolicy', () => {
  it('reads the mode on every decision and the permission per tool', async () => {
    let mode: ApprovalMode = 'deny-all';
    const h = host('allow');
    const approve = createApprover({ mode: () => mode, permissionOf: (n) => (n === 'read_file' ? 'r' : 'rw'), ask: h.ask, policy: commandPolicyCheck() });
    expect(await approve(call('read_file', {}))).toBe('deny');
    mode = 'read-only';
    expect(await approve(call('read_file', {}))).toBe('allow');
    expect(await approve(exec('ls'))).toBe('allow');
    expect(h.asked).toHaveLength(1);
    expect(await approve(exec('mkfs.ext4 /dev/sda1'))).toBe('forbidden');
  });

  it('wraps any approve callback with the veto', async () => {
    const h = host('allow');
    const approve = withCommandPolicy(h.ask, commandPolicyCheck());
    expect(await approve(exec(':(){ :|:& };:'))).toBe('forbidden');
    expect(await approve(exec('echo ok'))).toBe('allow');
    expect(h.asked).toHaveLength(1);
  });

  it('knows the four modes', () => {
    expect(APPROVAL_MODES).toEqual(['allow-all', 'deny-all', 'read-only', 'always-ask']);
    expect(isApprovalMode('read-only')).toBe(true);
    expect(isApprovalMode('yolo')).toBe(false);
  });
});

describe('stricterApproval', () => {
  it('picks the mode that lets tools do less without a human, whatever the order', () => {
    expect(stricterApproval('allow-all', 'read-only')).toBe('read-only');
    expect(stricterApproval('read-only', 'allow-all')).toBe('read-only');
    expect(stricterApproval('always-ask', 'read-only')).toBe('always-ask');
    expect(stricterApproval('deny-all', 'always-ask')).toBe('deny-all');
    for (const a of APPROVAL_MODES) {
      for (const b of APPROVAL_MODES) {
        const s = stricterApproval(a, b);
        expect(widensApproval(s, a) || s === a).toBe(true);
        expect(widensApproval(s, b) || s === b).toBe(true);
      }
    }
  });
});
