// The start form's fields as text and their check into a runs.start request: empty budget fields
// take the engine's defaults; a bad number is named by its field, before anything is sent.
import { Budgets, type CommandRequest } from '../../../../app/api/index.ts';

export type BudgetField =
  'maxTurns' | 'maxDepth' | 'maxChildrenPerCall' | 'maxAgents' | 'maxTokens' | 'wallTimeMin';

export interface StartFormFields {
  set: string;
  question: string;
  model: string;
  budgets: Record<BudgetField, string>;
}

export const budgetLabels: Record<BudgetField, string> = {
  maxTurns: 'Turns per agent',
  maxDepth: 'Depth',
  maxChildrenPerCall: 'Children per call',
  maxAgents: 'Agents',
  maxTokens: 'Tokens',
  wallTimeMin: 'Wall time (min)',
};

export const emptyStartForm: StartFormFields = {
  set: '',
  question: '',
  model: '',
  budgets: {
    maxTurns: '',
    maxDepth: '',
    maxChildrenPerCall: '',
    maxAgents: '',
    maxTokens: '',
    wallTimeMin: '',
  },
};

export type StartCheck =
  | { ok: true; request: CommandRequest<'runs.start'> }
  | { ok: false; problems: Partial<Record<keyof StartFormFields | BudgetField, string>> };

export function checkStartForm(fields: StartFormFields): StartCheck {
  const problems: Partial<Record<keyof StartFormFields | BudgetField, string>> = {};
  if (fields.set === '') problems.set = 'pick a paper set';
  if (fields.question.trim() === '') problems.question = 'ask a question';
  if (fields.model.trim() === '') problems.model = 'name a model, e.g. openai:gpt-4o-mini';
  const budgets: Record<string, number> = {};
  for (const [field, text] of Object.entries(fields.budgets) as [BudgetField, string][]) {
    if (text.trim() === '') continue;
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1) {
      problems[field] = 'a whole number of at least 1';
      continue;
    }
    if (field === 'wallTimeMin') budgets.wallTimeMs = value * 60_000;
    else budgets[field] = value;
  }
  const parsedBudgets = Budgets.partial().safeParse(budgets);
  if (!parsedBudgets.success)
    for (const issue of parsedBudgets.error.issues) {
      const key = String(issue.path[0]);
      const field = (key === 'wallTimeMs' ? 'wallTimeMin' : key) as BudgetField;
      problems[field] = issue.message;
    }
  if (Object.keys(problems).length > 0) return { ok: false, problems };
  // Only the budgets typed go out (parsing would fill in the engine's defaults for the rest).
  const request: CommandRequest<'runs.start'> = {
    set: fields.set,
    question: fields.question.trim(),
    model: fields.model.trim(),
    ...(Object.keys(budgets).length > 0 ? { budgets } : {}),
  };
  return { ok: true, request };
}
