import { Module, type DynamicModule, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { Database, type DatabaseOptions } from './database.js';

class DatabaseLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(private readonly database: Database) {}
  onModuleInit(): Promise<void> {
    return this.database.start();
  }
  onApplicationShutdown(): Promise<void> {
    return this.database.stop();
  }
}

/**
 * Gives a service module its `Database` (its own schema, its own migrations),
 * connected at start-up and closed at shutdown.
 */
@Module({})
export class DatabaseModule {
  static forService(options: DatabaseOptions): DynamicModule {
    const database = new Database(options);
    return {
      module: DatabaseModule,
      providers: [
        { provide: Database, useValue: database },
        { provide: DatabaseLifecycle, useFactory: () => new DatabaseLifecycle(database) },
      ],
      exports: [Database],
    };
  }
}
