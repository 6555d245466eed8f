// Callback style, CommonJS: echoes what the function received.
exports.handler = (event, context, callback) => {
  callback(null, {
    statusCode: 200,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ event, env: process.env, requestId: context.awsRequestId, functionName: context.functionName }),
  });
};
