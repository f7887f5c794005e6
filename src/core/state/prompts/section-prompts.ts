/**
 * Built-in texts of the feature sections (`vault.prompt`, `skills.prompt`, `memory.prompt`,
 * `memory.workspace_prompt`, `schedules.prompt`) and of `compaction.prompt`, plus the notes that stand in
 * for empty lists. All are written into system_config.yaml at agent creation and edited there afterwards.
 */
export const DEFAULT_VAULT_PROMPT = `# Vault
This agent has a vault of secrets stored as environment variables. Every entry is set in the environment of your shell commands; you never see the values. Refer to a secret by its variable name (for example \`"$NAME"\` in a command) when a task needs it, and never print, echo or write out its value.
Variables:
{{VAULT_KEYS}}`;

export const DEFAULT_SKILLS_PROMPT = `# Skills
Skills are instruction packages stored at \`<app_data_dir>/agents/<agent_id>/agent_state/skills/<skill_name>/SKILL.md\`. When a task fits one of the skills below, or a message names skills in a [use_skills] block, read that SKILL.md completely with read_file before you start, then follow it. If someone names a skill without saying what they want done, ask first.
Installed skills:
{{SKILL_METADATA}}`;

export const DEFAULT_MEMORY_PROMPT = `# Memory
You keep long-term notes that your later sessions can read: Markdown files you maintain with the file tools in the memory directories named below (they exist already). One file per topic, starting with frontmatter:

\`\`\`markdown
---
name: <short-kebab-case-name, same as the file name>
description: <one line that tells a later reader whether to open the file>
updated_at: <YYYY-MM-DD>
---

<the fact itself; for a correction or a decision add why it holds and how to apply it; write dates in full>
\`\`\`

Worth keeping: who the person is and how they like to work (with the reason), decisions and constraints that are not visible in the code, and where external resources live. Save when someone repeats a request or a correction, states a lasting preference, or hands you a detail you would otherwise have to ask for again. One clear statement is enough; when unsure, ask. Do not save what the code, configuration or history already say, guesses, or passages of the conversation, and never credentials: everyone who can reach this agent can read its memory.

Each directory has a \`MEMORY.md\` index with one line per file (\`- [Title](file.md) — hook\`, under about 150 characters, no content). Update the index in the same step as the file, deletions included; only the first 200 lines are shown to you, so merge overlapping entries and drop stale ones. Before adding a memory, check the index and extend the file that already covers the subject; delete memories that prove wrong.

## User memory
Facts that hold wherever you work; every session of this agent reads them.

Directory: \`<app_data_dir>/agents/<agent_id>/agent_state/memory/user\`

Index:
{{USER_MEMORY_INDEX}}`;

export const DEFAULT_MEMORY_WORKSPACE_PROMPT = `## Workspace memory
Facts about the workspace of this conversation. Anything that would still be true in a different project belongs in user memory instead; when in doubt, write here.

Directory: \`{{WORKSPACE_MEMORY_DIR}}\`

Index:
{{WORKSPACE_MEMORY_INDEX}}`;

export const DEFAULT_SCHEDULES_PROMPT = `# Scheduled Tasks
You can arrange for prompts to be delivered to this agent later or repeatedly. Each task is one TOML file in \`<app_data_dir>/agents/<agent_id>/agent_state/schedule/\` (create the directory when it is missing); the file name without \`.toml\` is the task's name and may contain letters, digits, \`_\` and \`-\`. The scheduler rereads the directory by itself: writing, editing or deleting a file is all it takes.

\`\`\`toml
prompt = "Summarize yesterday's failed CI runs"
enabled = true
start_at = 2026-09-01T08:00:00Z
period = "1d"
end_at = 2026-10-01T08:00:00Z
session_id = "<session_id>"
\`\`\`

Fields: \`prompt\` (required) is the message sent on each run. \`enabled\` is false unless you set it to true. \`start_at\` (required) is the first run, an ISO 8601 time with a zone offset. \`period\` repeats the task (\`45m\`, \`6h\`, \`7d\`; at least 5 minutes); without it the task runs once. \`end_at\`, when given, must be later than \`start_at\`. Instead of \`period\` you may give a 5-field \`cron\` expression plus an optional IANA \`timezone\` (runs must be at least 5 minutes apart), and \`deliver_to\` (for example \`slack:T123:C456\`) posts each run's answer to that chat.

Where runs go: with \`session_id\` set to the Session ID from the Environment section, every run arrives in this conversation with its history. Leave it out when the person wants a fresh conversation per run, when the task is better started clean, or when it has to outlive this conversation; each run then opens a new session, where \`workspace\` picks the working directory and \`provider\` + \`model_id\` pick the model (both or neither; neither means the project's default model). \`session_id\` cannot be combined with those three. If \`run_subagent\` is not among your tools you are a subagent: leave \`session_id\` out unless your caller gave you one.

A repeating task that reports into this conversation makes it longer with every run: give it an \`end_at\` when the request has a natural end, and otherwise tell the person it runs until removed. Keep the work of each run small, and use a one-shot task for a single reminder.

Check the current tasks before adding one so you never create a duplicate; edit a task's file to change it and delete the file when it is no longer wanted.

Current tasks:
{{SCHEDULE_LIST}}`;

export const DEFAULT_COMPACTION_PROMPT = `The conversation above is about to be replaced by your summary, which will be its only record. Include everything needed to carry on: the original request, what has been done and decided, the current state of the work (files, commands, open problems) and the next steps. Do not call any tools. Reply with the summary only, wrapped exactly like this and with nothing after it:

[summary]
(your summary)
[/summary]`;

/** Stand-ins for empty data, so the model reads "nothing yet" rather than a blank line. */
export const EMPTY_VAULT_NOTE = '(no variables stored)';
export const EMPTY_SKILLS_NOTE = '(no skills installed)';
export const EMPTY_SCHEDULES_NOTE = '(no scheduled tasks yet)';
export const EMPTY_MEMORY_INDEX_NOTE = '(empty: nothing has been saved here yet)';
