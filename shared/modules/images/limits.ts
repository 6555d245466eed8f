/**
 * The limits of image uploads (commerce.md §2.2), in a module without dependencies so the
 * route table (shared/app/routes.ts) can read them without pulling the image code into every bundle.
 */

/** Largest image file `POST /images` accepts: 10 MB; larger answers 422 account_limit_exceeded. */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

/** Room for the multipart framing around the file (boundary lines, part headers, a few small fields). */
export const MULTIPART_ALLOWANCE_BYTES = 1024 * 1024;

/** Largest request body of an upload: the file and its framing (what the local gateway reads at most). */
export const MAX_UPLOAD_BODY_BYTES = MAX_IMAGE_BYTES + MULTIPART_ALLOWANCE_BYTES;

/** Largest picture, in pixels of one frame: 40 megapixels (checked from the header, before decoding). */
export const MAX_IMAGE_PIXELS = 40_000_000;

/** Most images a product lists (`image_ids`). */
export const MAX_PRODUCT_IMAGES = 20;
