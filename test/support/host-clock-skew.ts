// Loaded into a child process (NODE_OPTIONS=--import) to stand for a host whose clock is off by
// ACQUIRO_TEST_HOST_CLOCK_SKEW_MS: every reading of the time in the process (Date.now(), new Date(),
// and so the embedded database it may run) is moved by that much, as the host's own clock would be.
const skewMs = Number(process.env.ACQUIRO_TEST_HOST_CLOCK_SKEW_MS ?? 0);
const HostDate = Date;

globalThis.Date = new Proxy(HostDate, {
  construct: (target, args, newTarget) => Reflect.construct(target, args.length === 0 ? [HostDate.now() + skewMs] : args, newTarget) as object,
  get: (target, key, receiver) => (key === 'now' ? () => HostDate.now() + skewMs : Reflect.get(target, key, receiver) as unknown),
});
