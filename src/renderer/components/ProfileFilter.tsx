import { Select } from '@mantine/core';
import { useProfiles } from '../stores/context';

interface Props {
  /** The chosen profile's id; null: all profiles. */
  value: string | null;
  onChange: (profileId: string | null) => void;
  error?: string;
  w: number;
}

/** A list's Profile filter: one of the profiles by name, or (cleared) all of them. */
export function ProfileFilter({ value, onChange, error, w }: Props) {
  const profiles = useProfiles((state) => state.profiles);
  return (
    <Select
      label="Profile"
      placeholder="All profiles"
      clearable
      value={value}
      onChange={onChange}
      data={(profiles ?? []).map((profile) => ({ value: profile.id, label: profile.name }))}
      error={error}
      w={w}
    />
  );
}
