# Logs bucket.
resource "aws_s3_bucket" "logs" {
  bucket = var.name
}

variable "name" {
  default = "x"
}

output "arn" {
  value = aws_s3_bucket.logs.arn
}
