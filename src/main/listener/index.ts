export { startListener, DEFAULT_LIMITS, LISTENER_PATH_PREFIX, type Listener, type ListenerLimits, type ListenerOptions } from './server';
export { notificationLink } from './links';
export { inspectNotification, isJsonContentType, type NotificationFacts } from './intake';
