/**
 * The simulated OpenClaw gateway in a process of its own, for benchmarks that
 * load the daemon: a gateway sharing a busy process could answer late, and a
 * late answer there would be the benchmark's fault, not the daemon's. Sends
 * `{ port }` to the parent once listening; exits when the parent goes.
 */
import { startSimulatedGateway } from '../main/simulator/simulated-gateway.js';

const gateway = await startSimulatedGateway();
process.send?.({ port: gateway.port });
process.on('disconnect', () => {
  void gateway.close().finally(() => process.exit(0));
});
