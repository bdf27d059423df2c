import { Tooltip, type TooltipProps } from '@mantine/core';
import { cloneElement, type MouseEvent, type ReactElement, useState } from 'react';

type Target = ReactElement<{ onMouseEnter?: (event: MouseEvent) => void }>;

/**
 * A hover tooltip for cells of long lists: Mantine's Tooltip is mounted only once the pointer
 * first enters its target (opened at once then), so a page of rows does not set up a floating
 * element and its listeners per badge before anyone points at one. Same look and behaviour.
 */
export function HoverTooltip({ children, ...props }: Omit<TooltipProps, 'children' | 'defaultOpened' | 'opened' | 'events'> & { children: Target }) {
  const [armed, setArmed] = useState(false);
  if (armed) {
    return (
      <Tooltip {...props} defaultOpened>
        {children}
      </Tooltip>
    );
  }
  return cloneElement(children, {
    onMouseEnter: (event: MouseEvent) => {
      children.props.onMouseEnter?.(event);
      setArmed(true);
    },
  });
}
