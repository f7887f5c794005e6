import {
  commandPolicyCheck,
  evaluateCommand,
  FACTORY_COMMAND_POLICY_RULES,
  normalizeCommand,
  unquotedVariant,
  type CommandPolicyConfig,
} from '../../../src/core/state/command-policy';
import { compilePolicyPattern, downlevelInlineModifiers } from '../../../src/core/state/regex-compat';
import { call, exec, input } from './helpers';

describe('factory command-policy rules', () => {
  it('has the nine rule names of engine.md §6.4, each compiling without flags on Node 20', () => {
    expect(FACTORY_COMMAND_POLICY_RULES.map((r) => r.name)).toEqual([
      'rm-recursive-force',
      'mkfs',
      'dd-to-block-device',
      'fork-bomb',
      'overwrite-block-device',
      'windows-recursive-delete',
      'windows-format-volume',
      'windows-disk-overwrite',
      'windows-fork-bomb',
    ]);
    for (const r of FACTORY_COMMAND_POLICY_RULES) {
      expect(() => new RegExp(r.pattern)).not.toThrow();
      expect(r.description).toBeTruthy();
    }
  });

  it.each([
    ['rm -rf /', 'rm-recursive-force'],
    ['rm -fr ~', 'rm-recursive-force'],
    ['rm -r -f ./data', 'rm-recursive-force'],
    ['rm -Rf /var/lib/postgres', 'rm-recursive-force'],
    ['rm --recursive --force build', 'rm-recursive-force'],
    ['rm -rfv ./build', 'rm-recursive-force'],
    ['sudo rm -rf --no-preserve-root /', 'rm-recursive-force'],
    ['cd /tmp && rm -rf *', 'rm-recursive-force'],
    ['/bin/rm -rf ~/projects', 'rm-recursive-force'],
    ['rm\t-rf\n/', 'rm-recursive-force'],
    ['r"m" -rf /', 'rm-recursive-force'],
    ["rm '-rf' /", 'rm-recursive-force'],
    ['\\rm -rf /', 'rm-recursive-force'],
    ['find . -type d | xargs rm -rf', 'rm-recursive-force'],
    ['mkfs.ext4 /dev/sdb1', 'mkfs'],
    ['sudo mkfs -t xfs /dev/nvme0n1', 'mkfs'],
    ['/sbin/mkfs.vfat /dev/sdc1', 'mkfs'],
    ['mke2fs /dev/sda2', 'mkfs'],
    ['dd if=/dev/zero of=/dev/sda bs=1M', 'dd-to-block-device'],
    ['dd if=image.iso of=/dev/disk2 bs=4m', 'dd-to-block-device'],
    ['sudo dd if=/dev/urandom of="/dev/nvme0n1"', 'dd-to-block-device'],
    [':(){ :|:& };:', 'fork-bomb'],
    [': () { : | : & } ; :', 'fork-bomb'],
    ['bomb() { bomb | bomb & }; bomb', 'fork-bomb'],
    ['echo garbage > /dev/sda', 'overwrite-block-device'],
    ['cat image.img >/dev/mmcblk0', 'overwrite-block-device'],
    ['echo 1 | sudo tee /dev/sdb', 'overwrite-block-device'],
    ['Remove-Item -Recurse -Force C:\\Users\\me', 'windows-recursive-delete'],
    ['remove-item C:\\x -force -recurse', 'windows-recursive-delete'],
    ['ri -r -fo C:\\temp', 'windows-recursive-delete'],
    ['rd /s /q C:\\temp', 'windows-recursive-delete'],
    ['RMDIR /S /Q D:\\', 'windows-recursive-delete'],
    ['del /s /q *.*', 'windows-recursive-delete'],
    ['format C:', 'windows-format-volume'],
    ['FORMAT D: /FS:NTFS /Q', 'windows-format-volume'],
    ['Format-Volume -DriveLetter E', 'windows-format-volume'],
    ['copy boot.img \\\\.\\PhysicalDrive0', 'windows-disk-overwrite'],
    ['Clear-Disk -Number 1 -RemoveData', 'windows-disk-overwrite'],
    ['%0|%0', 'windows-fork-bomb'],
  ])('blocks %j (%s)', (cmd, rule) => {
    expect(evaluateCommand(cmd)?.rule).toBe(rule);
  });

  it.each([
    'ls -la',
    'rm file.txt',
    'rm -f stale.lock',
    'rm -r old_dir',
    'rmdir empty_dir',
    'git rm -r --cached dist',
    'grep -rf patterns.txt src',
    'ls -rf',
    'npx rimraf dist',
    'find . -name "*.o" -delete',
    'cat mkfs.md',
    'ls /sbin/mkfs*',
    'dd if=/dev/zero of=/tmp/blob bs=1M count=10',
    'dd if=/dev/sda of=disk.img',
    'dd if=/dev/zero of=/dev/null count=1',
    'echo ok > /dev/null 2>&1',
    'make 2>/dev/stderr',
    'echo hi > /dev/tty',
    'npm run format',
    'git format-patch -1',
    'clang-format -i main.c',
    'prettier --write "src/**/*.ts"',
    'Remove-Item -Recurse .\\build',
    'Remove-Item -Force file.txt',
    'dir /s',
    'echo "%0"',
    'python3 -c "print(1)"',
    'docker system prune -f',
    'kubectl get pods -A',
  ])('allows %j', (cmd) => {
    expect(evaluateCommand(cmd)).toBeUndefined();
  });
});

describe('command-policy evaluation', () => {
  it('normalizes whitespace and strips quoting for the second variant', () => {
    expect(normalizeCommand('  rm \t -rf\n\n/  ')).toBe('rm -rf /');
    expect(unquotedVariant(`r"m" '-rf' \\/`)).toBe('rm -rf /');
  });

  it('checks exec_command.cmd and input_command.chars, exempting a lone Ctrl-C', () => {
    const check = commandPolicyCheck();
    expect(check(exec('rm -rf /'))).toEqual({ rule: 'rm-recursive-force', description: expect.any(String), command: 'rm -rf /' });
    expect(check(input('rm -rf ~\n'))?.rule).toBe('rm-recursive-force');
    expect(check(input('\u0003'))).toBeUndefined();
    expect(check(exec('ls'))).toBeUndefined();
    // Other tools and unreadable arguments carry no command.
    expect(check(call('write_file', { file_path: 'x.sh', content: 'rm -rf /' }))).toBeUndefined();
    expect(check(call('exec_command', '{not json'))).toBeUndefined();
    expect(check(call('exec_command', { cmd: 42 }))).toBeUndefined();
  });

  it('honours enabled = false on the policy and on single rules', () => {
    expect(commandPolicyCheck({ enabled: false })(exec('rm -rf /'))).toBeUndefined();
    const rules = FACTORY_COMMAND_POLICY_RULES.map((r) => (r.name === 'mkfs' ? { ...r, enabled: false } : { ...r }));
    const check = commandPolicyCheck({ rules });
    expect(check(exec('mkfs.ext4 /dev/sdb'))).toBeUndefined();
    expect(check(exec('rm -rf /'))?.rule).toBe('rm-recursive-force');
  });

  it('treats a present rules list as the whole list and an absent one as the factory rules', () => {
    const own: CommandPolicyConfig = { rules: [{ name: 'no-shutdown', pattern: '(?:^|\\s)shutdown(?:\\s|$)' }] };
    const check = commandPolicyCheck(own);
    expect(check(exec('sudo shutdown now'))?.rule).toBe('no-shutdown');
    expect(check(exec('rm -rf /'))).toBeUndefined();
    expect(commandPolicyCheck({ enabled: true })(exec('rm -rf /'))?.rule).toBe('rm-recursive-force');
  });

  it('is a snapshot: later edits to the config object change nothing', () => {
    const cfg: CommandPolicyConfig = { rules: [{ name: 'a', pattern: 'danger' }] };
    const check = commandPolicyCheck(cfg);
    cfg.rules!.push({ name: 'b', pattern: 'ls' });
    cfg.rules![0].enabled = false;
    expect(check(exec('ls'))).toBeUndefined();
    expect(check(exec('danger'))?.rule).toBe('a');
  });

  it('names a rule whose pattern cannot compile', () => {
    expect(() => commandPolicyCheck({ rules: [{ name: 'broken', pattern: '(' }] })).toThrow(/broken/);
  });
});

describe('inline (?i:…) modifiers from newer PenguinHarness files', () => {
  it.each([
    ['(?i:abc)', '(?:[aA][bB][cC])'],
    ['x(?i:a[b-d]\\s)y', 'x(?:[aA][b-dB-D]\\s)y'],
    ['(?i:a(?-i:b)c)', '(?:[aA](?:b)[cC])'],
    ['(?i:\\d{2,3}\\u0041\\p{L}|Q)', '(?:\\d{2,3}\\u0041\\p{L}|[qQ])'],
    ['(?<name>a)(?i:\\k<name>)', '(?<name>a)(?:\\k<name>)'],
    ['(?i:[^x\\]])', '(?:[^xX\\]])'],
  ])('rewrites %j', (src, out) => {
    expect(downlevelInlineModifiers(src)).toBe(out);
  });

  it('matches the same strings as the native modifier would', () => {
    const re = compilePolicyPattern('(?:^|\\s)(?i:clear-disk)(?![a-z])');
    expect(re.test('CLEAR-DISK -Number 1')).toBe(true);
    expect(re.test('Clear-Disk')).toBe(true);
    expect(re.test('clear-disks')).toBe(false);
    const mixed = compilePolicyPattern('(?i:a)b');
    expect(mixed.test('Ab')).toBe(true);
    expect(mixed.test('AB')).toBe(false);
  });

  it('still rejects patterns that are broken for other reasons', () => {
    expect(() => compilePolicyPattern('(?i:a')).toThrow(SyntaxError);
    expect(() => compilePolicyPattern('[')).toThrow(SyntaxError);
  });
});
