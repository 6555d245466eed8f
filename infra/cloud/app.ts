/**
 * The CDK app (cdk.json runs it with tsx): one `Cartwheel-<stage>` stack built from the
 * real route, family and queue tables and the context (./context.ts lists every name:
 * stage, custom domains, alarm email, WAF, backup copy, tracing, consumer limits).
 * The stack is environment-agnostic, so `cdk synth` needs no account, lookups or Docker.
 */
import { App } from 'aws-cdk-lib';
import { queues } from '../../shared/app/queues';
import { fallbackFamily, families, routes } from '../../shared/app/routes';
import { propsFromContext } from './context';
import { CartwheelStack } from './stack';

const app = new App();
const props = propsFromContext((name) => app.node.tryGetContext(name));

new CartwheelStack(app, `Cartwheel-${props.stage}`, { ...props, queues, families, routes, fallbackFamily });

app.synth();
