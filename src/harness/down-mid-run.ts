// A request of a run already open got no HTTP answer: a connection refused or reset, or no answer
// in time. That is either this request's own (a method that hangs or resets the connection: the
// check's to judge) or the interface gone (a node restarting, a server stopped). The interface is
// asked once more with a request any server answers; anything it answers shows it is there, and
// the failure stands as the request's own. One that answers nothing went down after it answered
// the run's start-up probe: a fact of the interface, outside the spec, as a gateway's "backend
// down" is. Its checks are not judged (cause `gateway`), and the run says so once, as one root.
import { TransportError } from './http';
import { GatewayError } from './throttle';

/**
 * The interface answered the run's start-up probe, then nothing: a gateway's "backend down" by
 * another road (cause `gateway` for a check that meets it). The pre-confirmation pass tells it
 * from a gateway that lost one send: the node stopped answering (preconf/state.ts, stopOf).
 */
export class InterfaceDown extends GatewayError {
  constructor(message: string, iface: 'rest' | 'rpc') {
    super(message, 1);
    this.name = 'InterfaceDown';
    this.iface = iface;
  }
}

/** What a client throws for a request of an open run that got no answer: `err` itself, or the interface found down. */
export async function orDown(
  err: TransportError,
  iface: 'rest' | 'rpc',
  askAgain: () => Promise<unknown>,
  asked: string,
  signal?: AbortSignal,
): Promise<Error> {
  // A mistake of the configuration is said with its fix; a request stopped by the run is no observation.
  if (err.mistake || signal?.aborted) return err;
  try {
    await askAgain();
    return err;
  } catch (again) {
    if (again instanceof GatewayError) {
      again.iface = iface;
      return again;
    }
    if (!(again instanceof TransportError) || again.mistake || signal?.aborted) return err;
    return new InterfaceDown(
      `${err.message}; asked again, ${asked} got no answer either (${again.message}): the interface answered the run's start-up probe and then went down`,
      iface,
    );
  }
}
