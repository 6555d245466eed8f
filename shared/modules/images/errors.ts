/** What the images capability can refuse, in the contract's codes (commerce.md §2.2). */
import { ApiError } from '../../core/errors';

/** Why an uploaded file is not accepted (`meta.reason`). */
export type ImageRefusal = 'unsupported_type' | 'type_mismatch' | 'undecodable' | 'too_many_pixels' | 'too_long';

/** 400 invalid_input on the form field `file`: the upload is not an image the platform takes. */
export class InvalidImageError extends ApiError {
  override name = 'InvalidImageError';
  constructor(
    readonly reason: ImageRefusal,
    message: string,
    extra: Record<string, unknown> = {},
  ) {
    super(400, 'invalid_input', message, { property: 'file', reason, ...extra });
  }
}

/** 400 invalid_input on `image_ids[i]`: no such image (reason `not_found`). */
export class ImageNotFoundError extends ApiError {
  override name = 'ImageNotFoundError';
  constructor(property: string, imageId: string) {
    super(400, 'invalid_input', `The image ${imageId} does not exist.`, { property, reason: 'not_found' });
  }
}

/** 400 token_type_mismatch on `image_ids[i]`: the image belongs to the other mode. */
export class ImageOtherModeError extends ApiError {
  override name = 'ImageOtherModeError';
  constructor(property: string, imageId: string) {
    super(400, 'token_type_mismatch', `The image ${imageId} belongs to the other mode than the access token.`, { property });
  }
}

/** 409 in_use: an upload retried with the same Idempotency-Key but another file. */
export class ImageKeyReusedError extends ApiError {
  override name = 'ImageKeyReusedError';
  constructor() {
    super(409, 'in_use', 'This Idempotency-Key was already used to upload a different file.', { parameter: 'Idempotency-Key', reason: 'conflict' });
  }
}
