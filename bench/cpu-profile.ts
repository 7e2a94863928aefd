// Reads a V8 .cpuprofile (node --cpu-prof): self time per frame, per place (an npm package, a
// source folder, Node's own modules), and the inclusive time of our own functions.

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly hitCount?: number;
  readonly children?: readonly number[];
}

export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface ProfileSummary {
  readonly totalMs: number;
  readonly idleMs: number;
  readonly gcMs: number;
  readonly busyMs: number;
  readonly byPlace: readonly (readonly [string, number])[];
  readonly frames: readonly { name: string; selfMs: number }[];
  readonly ours: readonly { name: string; totalMs: number }[];
}

const ROOT = new URL('../', import.meta.url).href;

function place(url: string): string {
  if (url === '') return '(native/V8)';
  if (url.startsWith('node:')) return url;
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1]!;
  if (url.startsWith(ROOT)) return url.slice(ROOT.length).split('/').slice(0, -1).join('/') || '.';
  return url;
}

function frameName(frame: CallFrame): string {
  const file = frame.url.startsWith(ROOT) ? frame.url.slice(ROOT.length) : frame.url.replace(/^.*node_modules\//, '');
  return `${frame.functionName || '(anonymous)'} ${file}${file ? `:${frame.lineNumber + 1}` : ''}`;
}

export function summariseProfile(profile: CpuProfile): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
  const totalMs = (profile.endTime - profile.startTime) / 1000;
  let idleMs = 0;
  let gcMs = 0;
  let probeMs = 0;
  const places = new Map<string, number>();
  const frames = new Map<string, number>();
  for (const [id, ms] of selfMs) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') idleMs += ms;
    if (frame.functionName === '(garbage collector)') gcMs += ms;
    // The probe's own profiler calls (node:inspector) are the measurement, not the server.
    if (frame.functionName === '(idle)' || frame.functionName === '(root)' || frame.functionName === '(program)' || frame.url === 'node:inspector') {
      if (frame.url === 'node:inspector') probeMs += ms;
      continue;
    }
    const where = frame.functionName === '(garbage collector)' ? '(garbage collector)' : place(frame.url);
    places.set(where, (places.get(where) ?? 0) + ms);
    const name = frameName(frame);
    frames.set(name, (frames.get(name) ?? 0) + ms);
  }
  // Inclusive time of each of our frames, counted once per sample however often it recurs.
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const ours = new Map<string, number>();
  for (const [id, ms] of selfMs) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      if (!frame.url.startsWith(`${ROOT}src/`)) continue;
      const name = frameName(frame);
      if (seen.has(name)) continue;
      seen.add(name);
      ours.set(name, (ours.get(name) ?? 0) + ms);
    }
  }
  const sorted = <K>(map: Map<K, number>) => [...map].sort((a, b) => b[1] - a[1]);
  return {
    totalMs,
    idleMs,
    gcMs,
    busyMs: totalMs - idleMs - probeMs,
    byPlace: sorted(places),
    frames: sorted(frames).map(([name, ms]) => ({ name, selfMs: ms })),
    ours: sorted(ours).map(([name, ms]) => ({ name, totalMs: ms })),
  };
}
