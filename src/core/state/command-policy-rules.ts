/**
 * The 9 factory command-policy rules seeded into every new project's `[command_policy]` (engine.md §6.4):
 * destructive one-liners with no undo. Patterns are JavaScript regex source without flags, matched
 * against a whitespace-normalized command (and its unquoted variant), so case-insensitive parts spell
 * both cases. They are an accident guardrail, not a sandbox: a false positive costs one denied call,
 * a false negative can cost a disk.
 */
export interface CommandPolicyRule {
  name: string;
  /** JavaScript regular expression source, no flags. */
  pattern: string;
  description?: string;
  /** Absent = enabled. */
  enabled?: boolean;
}

/** Every letter in both cases: `ci('rd')` → `[rR][dD]`. */
const ci = (word: string) => word.replace(/[A-Za-z]/g, (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`);

/** A PowerShell parameter name and every abbreviation of it down to `min` letters, any case. */
function abbrev(word: string, min: number): string {
  let tail = '';
  for (let i = word.length - 1; i >= min; i--) tail = `(?:${ci(word[i])}${tail})?`;
  return `${ci(word.slice(0, min))}${tail}`;
}

/** Where a command word may start: line start, whitespace or a shell separator, then an optional directory. */
const START = String.raw`(?:^|[\s;&|(\x60])(?:[^\s;&|()\x60'"]*/)?`;
/** The rest of the current command segment. */
const SEG = String.raw`[^;&|\n]*`;
/** End of a word. */
const END = String.raw`(?=$|[\s;&|)])`;
/** Block devices whose overwrite destroys data (never /dev/null, /dev/zero, /dev/tty…). */
const BLOCK_DEV = String.raw`/dev/(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk\d|rdisk\d|md\d|dm-\d|mapper/|loop\d)[\w/-]*`;

const FS_TYPES = 'ext2|ext3|ext4|xfs|btrfs|vfat|fat|msdos|exfat|ntfs|f2fs|minix|jfs|reiserfs|hfs|hfsplus|udf|bfs|cramfs';

export const FACTORY_COMMAND_POLICY_RULES: readonly CommandPolicyRule[] = Object.freeze([
  {
    name: 'rm-recursive-force',
    pattern:
      `${START}rm(?=\\s)` +
      `(?=${SEG}\\s-(?:[A-Za-z]*[rR][A-Za-z]*|-recursive)${END})` +
      `(?=${SEG}\\s-(?:[A-Za-z]*f[A-Za-z]*|-force)${END})`,
    description: 'rm with both a recursive and a force flag (rm -rf, rm -r -f, rm --recursive --force)',
  },
  {
    name: 'mkfs',
    pattern: `${START}(?:mkfs(?:\\.(?:${FS_TYPES}))?|mke2fs)${END}`,
    description: 'creating a filesystem (mkfs, mkfs.<type>, mke2fs) erases the target',
  },
  {
    name: 'dd-to-block-device',
    pattern: `${START}dd\\s${SEG}\\bof=${BLOCK_DEV}`,
    description: 'dd writing to a block device (of=/dev/null and friends stay allowed)',
  },
  {
    name: 'fork-bomb',
    pattern: String.raw`([^\s(){}|&;]+)\s*\(\s*\)\s*\{\s*\1\s*\|\s*\1\s*&\s*\}`,
    description: 'a function that pipes into itself in the background, like :(){ :|:& };:',
  },
  {
    name: 'overwrite-block-device',
    pattern: `>\\s*${BLOCK_DEV}|${START}tee\\s(?:${SEG}\\s)?${BLOCK_DEV}`,
    description: 'redirecting or tee-ing output onto a block device (> /dev/null stays allowed)',
  },
  {
    name: 'windows-recursive-delete',
    pattern:
      `${START}(?:${ci('remove-item')}|${ci('ri')}|${ci('rm')}|${ci('del')}|${ci('erase')}|${ci('rd')}|${ci('rmdir')})(?=\\s)` +
      `(?:(?=${SEG}\\s-${abbrev('recurse', 1)}${END})(?=${SEG}\\s-${abbrev('force', 2)}${END})` +
      `|(?=${SEG}/${ci('s')}(?![A-Za-z0-9]))(?=${SEG}/${ci('q')}(?![A-Za-z0-9])))`,
    description: 'Windows recursive forced delete (Remove-Item -Recurse -Force, rd /s /q, del /s /q)',
  },
  {
    name: 'windows-format-volume',
    pattern: `${START}${ci('format')}(?:\\.${ci('com')})?(?=\\s)(?=${SEG}\\s[A-Za-z]:(?![\\w\\\\/]))|${START}${ci('format-volume')}${END}`,
    description: 'Windows volume format (format C:, Format-Volume)',
  },
  {
    name: 'windows-disk-overwrite',
    pattern: String.raw`\\\\[.?]\\${ci('physicaldrive')}\d+|` + `${START}${ci('clear-disk')}${END}`,
    description: 'raw writes to a Windows physical drive (\\\\.\\PhysicalDriveN) and Clear-Disk',
  },
  {
    name: 'windows-fork-bomb',
    pattern: String.raw`%0\s*\|\s*%0`,
    description: 'the cmd.exe fork bomb %0|%0',
  },
] satisfies CommandPolicyRule[]);
