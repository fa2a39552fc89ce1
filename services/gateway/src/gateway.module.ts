import { Module, type DynamicModule } from '@nestjs/common';
import { BUS_CLIENT, type BusClient } from '@sextant/messaging';
import { AuditTrail } from './audit/audit-trail.js';
import { Authenticator } from './auth/authenticator.js';
import { ProtectedResourceController } from './auth/protected-resource.controller.js';
import type { GatewayConfig } from './config.js';
import { ContractDocuments } from './contracts/contract-documents.js';
import { ServiceDirectory } from './discovery/service-directory.js';
import { HealthController } from './health/health.controller.js';
import { HealthService } from './health/health.service.js';
import { McpController } from './mcp/mcp.controller.js';
import { McpEndpoint } from './mcp/mcp-endpoint.js';
import { McpServerFactory } from './mcp/mcp-server.factory.js';
import { ToolDispatcher } from './mcp/tool-dispatcher.js';
import { ScipUploadEndpoint } from './scip/scip-upload.endpoint.js';
import { GATEWAY_CONFIG } from './tokens.js';

export interface GatewayModuleOptions {
  config: GatewayConfig;
  /** NATS in distributed mode, the in-process bus in embedded mode. */
  bus: BusClient;
}

/** The MCP gateway: HTTP and stdio front ends, tool dispatch over the bus, health, contract resources. */
@Module({})
export class GatewayModule {
  static register({ config, bus }: GatewayModuleOptions): DynamicModule {
    return {
      module: GatewayModule,
      controllers: [McpController, HealthController, ProtectedResourceController],
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        { provide: BUS_CLIENT, useValue: bus },
        Authenticator,
        AuditTrail,
        ServiceDirectory,
        ContractDocuments,
        ToolDispatcher,
        McpServerFactory,
        ScipUploadEndpoint,
        McpEndpoint,
        HealthService,
      ],
      exports: [McpServerFactory],
    };
  }
}
