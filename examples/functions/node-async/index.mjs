// ES module, async handler; module state counts the calls this child served.
let calls = 0;

export const handler = async (event, context) => {
  calls += 1;
  return {
    statusCode: 200,
    headers: { 'Content-Type': 'text/plain' },
    body: `${event.httpMethod} ${event.path} calls=${calls} remaining=${context.getRemainingTimeInMillis() > 0}`,
  };
};
