// Placeholder while the HTTP core is being written; replaced in the same change.
export const handler = async (): Promise<{ statusCode: number }> => ({ statusCode: 500 });
