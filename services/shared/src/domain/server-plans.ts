import { ConfigError } from '../service/config';

/**
 * The private-server plans, `SERVER_PLANS`: a JSON object of plan name → monthly price in EUR cents. Billing
 * prices them; the gateway states the names as the closed set they are in its schema (an enum), so it reads
 * the same setting the same way.
 */
export const defaultServerPlans = '{"vps-small":1500,"vps-large":3500}';

export type ServerPlans = ReadonlyMap<string, number>;

export function parseServerPlans(raw: string): ServerPlans {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(['SERVER_PLANS: not valid JSON']);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new ConfigError(['SERVER_PLANS: must be a JSON object of plan → price in EUR cents']);
  const plans = new Map<string, number>();
  const problems: string[] = [];
  for (const [plan, price] of Object.entries(parsed as Record<string, unknown>)) {
    if (!/^[a-z0-9][a-z0-9._-]{0,39}$/.test(plan))
      problems.push(`SERVER_PLANS: plan name ${JSON.stringify(plan)} must be 1-40 of a-z 0-9 . _ -`);
    else if (!Number.isSafeInteger(price) || (price as number) < 1 || (price as number) > 100_000)
      problems.push(`SERVER_PLANS: price of ${plan} must be an integer number of cents from 1 to 100000`);
    else plans.set(plan, price as number);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return plans;
}
