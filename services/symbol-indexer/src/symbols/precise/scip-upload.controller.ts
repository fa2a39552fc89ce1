import { Controller } from '@nestjs/common';
import { ScipUpload } from '@sextant/contracts';
import { ToolHandler } from '@sextant/messaging';
import { ScipUploads } from './scip-upload.js';

/** Thin bus adapter of `POST /scip` (ADR 0056): the gateway's begin, parts and finish of an upload. */
@Controller()
export class ScipUploadController {
  constructor(private readonly uploads: ScipUploads) {}

  @ToolHandler({ request: ScipUpload.begin })
  begin(input: { repository: string; commit: string; bytes?: number }): Promise<ScipUpload.BeginResponse> {
    return this.uploads.begin(input);
  }

  @ToolHandler({ request: ScipUpload.part })
  part(input: { upload_id: string; part: number; data: string }): Promise<{ bytes: number }> {
    return this.uploads.part(input);
  }

  @ToolHandler({ request: ScipUpload.finish })
  finish(input: { upload_id: string; parts: number; cancel?: boolean }): Promise<ScipUpload.FinishResponse> {
    return this.uploads.finish(input);
  }
}
