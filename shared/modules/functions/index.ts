/** The functions module's one door: what other modules, flows and the app may use of it. */

export { hostedFunctionDeclaration, hostedFunctionPath, invokeUrl, type HostedFunctionView } from './declaration';
export { functionDeployWork, functionRemovalWork } from './deploy-work';
export { MAX_INVOKE_BYTES } from './limits';
export type { HostedFunctionRecord } from './records';
export { findHostedFunction } from './hosted-function-store';
export { deliverToFunction, destinationFunction, type FunctionDelivery } from './invoke/destination';
export { functionRouter } from './invoke/router';
