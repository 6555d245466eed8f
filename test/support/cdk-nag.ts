/**
 * Runs the cdk-nag AwsSolutions and Serverless packs over a construct tree: the findings left
 * unacknowledged (the test fails on any), and every finding counted by rule with the
 * acknowledgements ignored (what the report states as acknowledged).
 */
import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/** One pack's finding: rule and the construct paths it names. */
export interface NagFinding {
  rule: string;
  paths: string[];
}

type Pack = AwsSolutionsChecks | ServerlessChecks;

const packs = (): Pack[] => [new AwsSolutionsChecks(), new ServerlessChecks()];

function findings(pack: Pack, scope: IConstruct): NagFinding[] {
  return pack.validateScope(scope).violations.map((violation) => ({ rule: violation.ruleName, paths: violation.violatingResources.map((resource) => resource.constructPath ?? '?') }));
}

/** Findings no acknowledgement covers. */
export function unacknowledgedFindings(scope: IConstruct): NagFinding[] {
  return packs().flatMap((pack) => findings(pack, scope));
}

/** Every finding by rule, acknowledged or not (the packs run with acknowledgements ignored). */
export function allFindingCounts(scope: IConstruct): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const pack of packs()) {
    // cdk-nag reads acknowledgements through this one method; ignoring it shows every finding.
    (pack as unknown as { isAcknowledged: () => boolean }).isAcknowledged = () => false;
    for (const finding of findings(pack, scope)) counts[finding.rule] = (counts[finding.rule] ?? 0) + finding.paths.length;
  }
  return counts;
}

/** Every acknowledgement in the tree: rule id and reason (an empty reason is a test failure). */
export function acknowledgements(scope: IConstruct): { rule: string; reason: string; path: string }[] {
  const found: { rule: string; reason: string; path: string }[] = [];
  for (const construct of scope.node.findAll()) {
    for (const entry of construct.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY || !entry.data) continue;
      for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) found.push({ rule: id.replace(/^annotation::/i, ''), reason, path: construct.node.path });
    }
  }
  return found;
}
