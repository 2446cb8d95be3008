package main

// ToResponse maps a stored task to the API's representation.
func ToResponse(t Task) TaskResponse {
	return TaskResponse{
		ID:     t.ID,
		Status: t.Status,
	}
}
