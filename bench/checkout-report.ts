/**
 * The checkout bench's printout (bench/checkout.ts): speed side by side with ratios, step
 * latencies, and DynamoDB calls and rounds per step with the on-paper cloud estimate.
 */
import type { BaselineTree } from './baseline-tree';
import { assumptions, estimateFromMix, estimateFromRounds } from './cloud-estimate';
import { percentile } from './load';
import { CATALOGUE_SIZE, QUIET_MS, STEPS, type CheckoutSample, type Sample, type Shop, type StepName } from './shopper';

/** What one runtime measured. */
export interface Figures {
  sequential: { samples: CheckoutSample[]; ms: number };
  concurrent: { samples: CheckoutSample[]; ms: number };
  reads: { samples: Sample[]; ms: number };
  /** Emulator calls per checkout over the whole one-at-a-time run (background work included). */
  sequentialEmulatorCalls?: number;
  /** Step-by-step checkouts and catalogue reads, each step after a quiet pause, also counted by the emulator. */
  counted: CheckoutSample[];
  countedReads: Sample[];
  /** Checkouts and catalogue reads with nothing between them. */
  backToBack: CheckoutSample[];
  backToBackReads: Sample[];
}

/** The commit before this round of performance work, where the "before" rounds were traced by hand. */
const TRACED_COMMIT = '4876dda';
/** Calls and rounds per step at 4876dda, from a hand trace of one checkout (printed for reference). */
const TRACED: Record<StepName, { calls: number; rounds: number }> = {
  token: { calls: 5, rounds: 5 },
  cart: { calls: 7, rounds: 6 },
  pay: { calls: 9, rounds: 9 },
  'order read': { calls: 6, rounds: 5 },
};

/** What the report is about. */
export interface ReportInput {
  /** Baseline first when there is one, then the current tree. */
  shops: Shop[];
  figures: (shop: Shop) => Figures;
  currentTitle: string;
  baseline?: BaselineTree;
  /** What `addMeter` said about the baseline. */
  meter?: string;
  shoppers: number;
  /** How the runtimes' Node options were chosen, e.g. `each with its own npm start Node options`. */
  nodeOptions?: string;
}


/** p50 and p99 of some milliseconds. */
function p50p99(ms: number[]): { p50: number; p99: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}
const fixed = (n: number, digits = 1) => n.toFixed(digits);
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
/**
 * A row: the first cell left-aligned in `first` columns, the next `columns` right-aligned in
 * `width`, anything after that (a ratio and its note) after two spaces.
 */
const row = (cells: string[], columns: number, first = 34, width = 22) =>
  `${cells[0]!.padEnd(first)}${cells.slice(1, columns + 1).map((cell) => cell.padStart(width)).join('')}${cells.length > columns + 1 ? `  ${cells.slice(columns + 1).join('  ')}` : ''}`;

/** The most common value of `key` among `items`. */
function mostCommon<T>(items: T[], key: (item: T) => string): T {
  const counts = new Map<string, { item: T; count: number }>();
  for (const item of items) {
    const entry = counts.get(key(item)) ?? { item, count: 0 };
    entry.count++;
    counts.set(key(item), entry);
  }
  return [...counts.values()].sort((a, b) => b.count - a.count)[0]!.item;
}
const sum = (byOperation: Record<string, number>) => Object.values(byOperation).reduce((a, b) => a + b, 0);

/** DynamoDB cost of one step (or a catalogue read) on one runtime, and its cloud estimate. */
interface StepCost {
  calls: number;
  /** Undefined without the header (a baseline the meter could not be added to). */
  rounds?: number;
  byOperation: Record<string, number>;
  /** The operations of each round (header only). */
  roundOperations?: string[][];
  /** Calls the emulator counted during the same request (step-by-step samples only; background work adds to it). */
  emulatorCalls?: number;
  /** Fewest and most calls among the samples, when they differ. */
  spread?: [number, number];
  estimateMs: number;
}

/**
 * A step's cost from its samples: the most common header, else the emulator's quietest count
 * with rounds unknown (estimated as if every call were its own round, an upper bound);
 * undefined when there is neither.
 */
function stepCost(samples: Sample[]): StepCost | undefined {
  const withHeader = samples.filter((sample) => sample.cost);
  if (withHeader.length) {
    const chosen = mostCommon(withHeader, (sample) => JSON.stringify(sample.cost!.roundOperations));
    const { calls, rounds, byOperation, roundOperations } = chosen.cost!;
    const all = withHeader.map((sample) => sample.cost!.calls);
    const spread: [number, number] | undefined = Math.min(...all) === Math.max(...all) ? undefined : [Math.min(...all), Math.max(...all)];
    const emulatorCalls = chosen.emulatorCalls && sum(chosen.emulatorCalls);
    return { calls, rounds, byOperation, roundOperations, emulatorCalls, spread, estimateMs: estimateFromRounds(roundOperations) };
  }
  const counted = samples.filter((sample) => sample.emulatorCalls).map((sample) => sample.emulatorCalls!);
  if (!counted.length) return undefined;
  const quietest = counted.sort((a, b) => sum(a) - sum(b))[0]!;
  return { calls: sum(quietest), byOperation: quietest, emulatorCalls: sum(quietest), estimateMs: estimateFromMix(sum(quietest), quietest) };
}

/** Prints the whole report. */
export function printReport({ shops, figures: of, currentTitle, baseline: baselineTree, meter, shoppers, nodeOptions }: ReportInput): void {
  const baselineShop = shops.length === 2 ? shops[0] : undefined;
  const currentShop = shops.at(-1)!;
  const label = (shop: Shop) => (shop === baselineShop ? `baseline ${baselineTree!.title.split(' ')[0]}` : `current ${currentTitle.split(' ')[0]}`);
  const n = shops.length;

  // ---- Speed --------------------------------------------------------------------------------
  console.log(`\n== Speed on the local runtime (same client, alternating rounds${nodeOptions ? `, ${nodeOptions}` : ''}) ==`);
  console.log(row(['', ...shops.map(label), ...(baselineShop ? ['current/baseline'] : [])], n));
  const rate = (count: number, ms: number) => (count / ms) * 1000;
  const lines: { name: string; unit: string; pick: (figures: Figures) => { count: number; ms: number; latencies: number[] }; goal?: string }[] = [
    { name: 'checkout one at a time', unit: 'checkouts/s', pick: (f) => ({ count: f.sequential.samples.length, ms: f.sequential.ms, latencies: f.sequential.samples.map((s) => s.ms) }), goal: '(issue 12: at least 3x)' },
    { name: `checkout, ${shoppers} shoppers`, unit: 'checkouts/s', pick: (f) => ({ count: f.concurrent.samples.length, ms: f.concurrent.ms, latencies: f.concurrent.samples.map((s) => s.ms) }) },
    { name: `catalogue read (${CATALOGUE_SIZE}), one at a time`, unit: 'reads/s', pick: (f) => ({ count: f.reads.samples.length, ms: f.reads.ms, latencies: f.reads.samples.map((s) => s.ms) }), goal: '(issue 12: at least 1.5x)' },
  ];
  for (const line of lines) {
    const picked = shops.map((shop) => line.pick(of(shop)));
    const rates = picked.map((p) => rate(p.count, p.ms));
    const latencies = picked.map((p) => p50p99(p.latencies));
    console.log(row([line.name, ...rates.map((r) => `${fixed(r)} ${line.unit}`), ...(baselineShop ? [ratio(rates[1]!, rates[0]!), line.goal ?? ''] : [])], n));
    console.log(row(['  p50 / p99 ms', ...latencies.map((l) => `${fixed(l.p50)} / ${fixed(l.p99)}`), ...(baselineShop ? [`${ratio(latencies[1]!.p50, latencies[0]!.p50)} (p50; lower is faster)`] : [])], n));
  }

  console.log('\n== Per checkout step, p50 / p99 ms ==');
  console.log(row(['', ...shops.map((shop) => `1 at a time ${shop.name}`), ...shops.map((shop) => `${shoppers} shoppers ${shop.name}`)], 2 * n, 14, 24));
  for (const step of STEPS) {
    const cell = (samples: CheckoutSample[]) => {
      const l = p50p99(samples.map((sample) => sample.steps[step].ms));
      return `${fixed(l.p50)} / ${fixed(l.p99)}`;
    };
    console.log(row([step, ...shops.map((shop) => cell(of(shop).sequential.samples)), ...shops.map((shop) => cell(of(shop).concurrent.samples))], 2 * n, 14, 24));
  }

  // ---- DynamoDB -----------------------------------------------------------------------------
  const names = [...STEPS, 'catalogue read'] as const;
  const costsOf = (checkouts: (f: Figures) => CheckoutSample[], reads: (f: Figures) => Sample[]) =>
    new Map(
      shops.map((shop) => {
        const f = of(shop);
        const perStep = new Map<string, StepCost | undefined>(STEPS.map((step) => [step, stepCost(checkouts(f).map((c) => c.steps[step]))]));
        perStep.set('catalogue read', stepCost(reads(f)));
        return [shop, perStep] as const;
      }),
    );
  const stepByStep = costsOf((f) => f.counted, (f) => f.countedReads);
  const backToBack = costsOf((f) => f.backToBack, (f) => f.backToBackReads);
  const baselineSource =
    meter === 'added' ? ', the baseline counted with the same meter added (restarted for counting; timed without it)'
    : meter === 'native' ? ''
    : baselineShop ? '; the baseline has no meter: its calls are the emulator’s, rounds unknown (?), its estimate an upper bound (≤)' : '';
  console.log(`\n== DynamoDB calls / sequential round trips, and an on-paper cloud estimate ==`);
  console.log(`Counted by the x-cartwheel-dynamodb header${baselineSource}.`);
  console.log(`Cloud estimate: Lambda + API Gateway overhead per request + Σ over rounds of the round's slowest call. Assumed: ${assumptions()}.`);
  const estimates = new Map<string, number[]>();
  const table = (title: string, costs: typeof stepByStep) => {
    console.log(`\n${title}`);
    console.log(row(['', ...shops.flatMap((shop) => [`${shop.name} calls / rounds`, 'cloud est.'])], 2 * n, 16, 24));
    const cells = (cost: StepCost | undefined) =>
      cost
        ? [`${cost.spread ? `(${cost.spread.join('–')}) ` : ''}${cost.calls} / ${cost.rounds ?? '?'}`, `${cost.rounds === undefined ? '≤ ' : ''}${fixed(cost.estimateMs)} ms`]
        : ['n/a', 'n/a'];
    for (const name of names) {
      if (name === 'catalogue read') {
        const totals = shops.map((shop) => {
          const steps = STEPS.map((step) => costs.get(shop)!.get(step));
          if (steps.some((cost) => !cost)) return undefined;
          const known = steps.every((cost) => cost!.rounds !== undefined);
          const total = { calls: 0, rounds: known ? 0 : undefined, byOperation: {}, estimateMs: 0 } as StepCost;
          for (const cost of steps) {
            total.calls += cost!.calls;
            if (known) total.rounds! += cost!.rounds!;
            total.estimateMs += cost!.estimateMs;
          }
          return total;
        });
        estimates.set(title, totals.map((total) => total?.estimateMs ?? NaN));
        console.log(row(['checkout total', ...totals.flatMap(cells)], 2 * n, 16, 24));
      }
      console.log(row([name, ...shops.flatMap((shop) => cells(costs.get(shop)!.get(name)))], 2 * n, 16, 24));
    }
  };
  table(`Cold: step by step, ${(QUIET_MS / 1000).toFixed(1)} s quiet before each step (every one-second cache lapsed: token record, rate-limit lease, settings)`, stepByStep);
  table('Warm: back to back, 10 checkouts and reads with nothing between (the process’s caches fresh)', backToBack);
  const spread = [stepByStep, backToBack].some((costs) => [...costs.values()].some((perStep) => [...perStep.values()].some((cost) => cost?.spread)));
  if (spread) console.log('(a–b) in front of calls / rounds: the samples differed, from a to b calls; the most common is shown.');

  console.log('');
  for (const [title, [first, last]] of estimates) {
    const name = title.split(':')[0]!.toLowerCase();
    if (baselineShop && first !== undefined && last !== undefined) {
      console.log(
        `Cloud estimate, one checkout (${name}): ${fixed(first)} ms before, ${fixed(last)} ms after: ` +
          `${fixed(1000 / first)} → ${fixed(1000 / last)} checkouts/s one at a time (${ratio(first, last)} on paper).`,
      );
    } else {
      console.log(`Cloud estimate, one checkout (${name}): ${fixed(first!)} ms (${fixed(1000 / first!)} checkouts/s one at a time).`);
    }
  }
  const whole = shops.map((shop) => of(shop).sequentialEmulatorCalls);
  console.log(
    `Calls per checkout over the whole one-at-a-time run, background work included (emulator): ` +
      shops.map((shop, i) => `${shop.name} ${whole[i] === undefined ? 'n/a' : fixed(whole[i]!)}`).join(', ') +
      '.',
  );
  if (baselineTree?.commit.startsWith(TRACED_COMMIT)) {
    const traced = STEPS.map((step) => `${step} ${TRACED[step].calls}/${TRACED[step].rounds}`).join(', ');
    const calls = STEPS.reduce((a, step) => a + TRACED[step].calls, 0);
    const rounds = STEPS.reduce((a, step) => a + TRACED[step].rounds, 0);
    console.log(`Hand trace at ${TRACED_COMMIT}, for reference (calls/rounds): ${traced}; ${calls} calls, ${rounds} rounds.`);
  }

  console.log('\nRound by round, cold (→ next round, + sent together; [emulator n] where the emulator counted more, background work included):');
  for (const name of names) {
    for (const [i, shop] of shops.entries()) {
      const cost = stepByStep.get(shop)!.get(name);
      const detail = !cost
        ? 'n/a'
        : cost.roundOperations
          ? cost.roundOperations.map((round) => round.join('+')).join(' → ') || 'no calls'
          : Object.entries(cost.byOperation).map(([op, count]) => `${op} ×${count}`).join(', ') + ' (order unknown)';
      const check = cost?.roundOperations && cost.emulatorCalls !== undefined && cost.emulatorCalls !== cost.calls ? ` [emulator ${cost.emulatorCalls}]` : '';
      console.log(`  ${(i === 0 ? name : '').padEnd(15)} ${shop.name.padEnd(9)} ${detail}${check}`);
    }
  }
}
