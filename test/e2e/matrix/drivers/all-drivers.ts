// The four client families' drivers against one gateway, in the order the matrix and the cloud
// tests run them (Messages first: a test that needs one family picks it by `family`).
import { TEST_KEY } from '../../../helpers/start-gateway.ts';
import { chatDriver } from './chat-driver.ts';
import type { Driver } from './driver.ts';
import { geminiDriver } from './gemini-driver.ts';
import { messagesDriver } from './messages-driver.ts';
import { responsesDriver } from './responses-driver.ts';

export const allDrivers = (url: string, key = TEST_KEY): Driver[] => [
  messagesDriver(url, key),
  chatDriver(url, key),
  responsesDriver(url, key),
  geminiDriver(url, key),
];
